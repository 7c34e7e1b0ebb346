package node

import (
	"errors"
	"fmt"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/logstore"
)

// readyRoundsMax bounds the Ready rounds of one processing cycle; more
// means raft keeps producing work without input, a bug: panic.
const readyRoundsMax = 10000

// groupReady is one group's Ready within a round.
type groupReady struct {
	g  *raftGroup
	rd raft.Ready
}

// Process runs the processing cycle now; a host that set
// Config.HostProcesses calls it after handing over inputs.
func (n *Node) Process() { n.process() }

// maybeProcess runs the cycle unless the host processes.
func (n *Node) maybeProcess() {
	if !n.cfg.HostProcesses {
		n.process()
	}
}

// process runs the processing cycle: Ready rounds until no group has one,
// then one flush of the collected raft messages, one batch per peer.
func (n *Node) process() {
	n.stats.Cycles++
	for round := 0; n.failed == nil; round++ {
		if round == readyRoundsMax {
			panic(fmt.Sprintf("node %d: %d Ready rounds in one cycle without quiescing", n.cfg.ID, round))
		}
		if !n.round() {
			n.out.flush(n)
			if !n.anyReady() {
				n.maybeRewrite()
				return
			}
		}
	}
}

// HasWork reports whether processing now would do anything: some group
// has a Ready (entries or state to persist, messages to send, entries to
// apply, read states). A host that processes (Config.HostProcesses) may
// skip Process after an input when it has none: the cycle would find
// nothing to persist, send or answer. A failed node has no work.
func (n *Node) HasWork() bool { return n.failed == nil && n.anyReady() }

func (n *Node) anyReady() bool {
	for _, g := range n.raftGroups {
		if g.rn.HasReady() {
			return true
		}
	}
	return false
}

// round handles one Ready of every group that has one, in raft's order:
// persist snapshot, entries and hard state together with the applied rows
// of the committed entries in ONE store commit (one fsync); only then
// queue the messages, answer clients and Advance. It reports whether any
// group had a Ready.
func (n *Node) round() bool {
	n.reached = 0
	if len(n.late) > 0 {
		n.applyLate()
	}
	if n.incarnationsDue {
		n.incarnationsDue = false
		n.tickIncarnations()
	}
	rds := n.rdsBuf[:0]
	for _, g := range n.raftGroups {
		if g.rn.HasReady() {
			rds = append(rds, groupReady{g: g, rd: g.rn.Ready()})
		}
	}
	defer func() {
		clear(rds) // drop references to raft's entries and messages
		n.rdsBuf = rds[:0]
	}()
	if len(rds) == 0 {
		return false
	}
	n.stats.Rounds++
	b := &n.batch
	defer b.Reset()
	replies := n.repliesBuf[:0]
	defer func() {
		clear(replies) // drop references to answer bodies
		n.repliesBuf = replies[:0]
	}()
	for i := range rds {
		n.persist(b, &rds[i])
	}
	if n.failed != nil {
		return false
	}
	for i := range rds {
		replies = n.applyCommitted(b, &rds[i], replies)
	}
	if err := n.commit(b); err != nil {
		n.trace.discard()
		n.fail(fmt.Errorf("node %d: store commit refused: %w", n.cfg.ID, err))
		return false
	}
	n.noteRoundMoments(rds, b)
	if n.cfg.Observer != nil {
		n.observePersisted(rds)
		n.observeRound(rds)
	}
	n.trace.flush()
	n.reportMoments()
	for i := range rds {
		gr := &rds[i]
		n.cfg.Density.noteRaft(&gr.rd)
		n.out.add(gr.g.id, gr.rd.Messages)
		n.renewLease(gr)
		for _, rs := range gr.rd.ReadStates {
			n.reads.confirm(rs.RequestCtx, rs.Index)
		}
		gr.g.rn.Advance(gr.rd)
	}
	for _, r := range replies {
		n.answer(r.client, r.reqID, r.body)
	}
	for i := range rds {
		n.serveReads(rds[i].g)
	}
	return true
}

// commit makes the round's batch durable in one store commit (in two
// under the PositionApartFromState defect: commitApart).
func (n *Node) commit(b *logstore.Batch) error {
	if planted, err := n.commitApart(b); planted {
		return err
	}
	if b.Empty() {
		return nil
	}
	n.stats.Commits++
	return n.store.Commit(b)
}

// persist adds one group's raft persistence to the batch and notes
// leadership changes.
func (n *Node) persist(b *logstore.Batch, gr *groupReady) {
	g, rd := gr.g, &gr.rd
	if rd.SoftState != nil {
		wasLeader := g.isLeader
		g.lead = rd.SoftState.Lead
		g.isLeader = rd.SoftState.RaftState == raft.StateLeader
		if wasLeader && !g.isLeader {
			n.dropReads(g)
			n.dropWrites(g)
			n.dropCommands(g)
			g.ephemeral = nil // subscribers reconnect to the new leader
		}
		if !wasLeader && g.isLeader {
			n.notePromotion(g)
		}
	}
	n.trace.ready(g, rd)
	w := logstore.GroupWrite{Group: g.id, Entries: rd.Entries}
	if !raft.IsEmptySnap(rd.Snapshot) {
		if err := n.installSnapshot(b, g, rd.Snapshot); err != nil {
			n.fail(fmt.Errorf("node %d: install snapshot: %w", n.cfg.ID, err))
			return
		}
		n.trace.installed(g)
		w.Snapshot = storedSnapshot(g, rd.Snapshot)
		if g.id != MetaGroup {
			w.AppliedIndex = g.applied // the metadata group's is never stored
		}
	}
	if !raft.IsEmptyHardState(rd.HardState) {
		w.HardState = n.cfg.Defects.persistedHardState(rd.HardState)
	}
	if w.Snapshot == nil && len(w.Entries) == 0 && w.HardState == nil {
		return
	}
	b.Groups = append(b.Groups, w)
}

// storedSnapshot is what the store keeps of a received snapshot: all of it
// for the metadata group (a restart reads the metadata from it); for a
// stream shard group its metadata and, as a compaction point would, its
// features byte and stream incarnation (its content is in the applied
// rows, but a restart must gate commits and refuse a deleted stream as
// the snapshot said: the markers before it are not in this replica's
// log). installSnapshot has checked the data's header and has set
// g.incarnation to the snapshot's.
func storedSnapshot(g *raftGroup, snap *raftpb.Snapshot) *raftpb.Snapshot {
	if g.id == MetaGroup {
		return snap
	}
	return &raftpb.Snapshot{Metadata: snap.GetMetadata(), Data: appendIncarnation([]byte{compactionMagic, snap.GetData()[1]}, g.incarnation)}
}

// RewriteBytesMin is the store file size below which the node never asks
// for a rewrite; above it, the node rewrites the file whenever it has
// doubled since the last rewrite (amortised linear cost), so a restart
// replays current content rather than all history.
const RewriteBytesMin = 1 << 20

// maybeRewrite compacts the store file when it has grown enough. A
// refused rewrite leaves the store as it was (retried after the next
// doubling); a failed one fails the node.
func (n *Node) maybeRewrite() {
	size := n.store.Stats().FileBytes
	if size < RewriteBytesMin || size < 2*n.rewrittenBytes {
		return
	}
	err := n.store.Rewrite()
	n.rewrittenBytes = n.store.Stats().FileBytes
	n.stats.Rewrites++
	if err == nil {
		return
	}
	if errors.Is(err, logstore.ErrFailed) {
		n.fail(fmt.Errorf("node %d: store rewrite: %w", n.cfg.ID, err))
		return
	}
	n.rewrittenBytes = size
	n.logger.Warningf("store rewrite refused, retried after the file doubles: %v", err)
}
