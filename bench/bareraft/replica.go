package bareraft

import (
	"encoding/binary"
	"fmt"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
)

// replica is one RawNode of a group, on its own MemoryStorage, with the
// proposals it applied.
type replica struct {
	h       *Harness
	g       *group
	id      uint64
	rn      *raft.RawNode
	storage *raft.MemoryStorage
	conf    *raftpb.ConfState
	// leading is set while the replica's last soft state said it leads.
	leading bool
	// applied is the last applied raft index; appliedSeq[seq] is set once
	// it applied the group's proposal seq, appliedCount counts them, and
	// twice is the first proposal it applied twice (or -1).
	applied      uint64
	appliedSeq   []bool
	appliedCount uint64
	twice        int64
	// compacted is the index its storage was last compacted to.
	compacted uint64
}

// newReplica makes raft id id of g, a voter among voters, from a
// bootstrap snapshot at index 1, term 1, configured as a felixsim broker
// configures its groups (node.startRaft).
func newReplica(h *Harness, g *group, id uint64, voters []uint64) (*replica, error) {
	r := &replica{h: h, g: g, id: id, storage: raft.NewMemoryStorage(), twice: -1,
		conf: &raftpb.ConfState{Voters: voters}, applied: 1, compacted: 1}
	snap := &raftpb.Snapshot{Metadata: &raftpb.SnapshotMetadata{Index: new(uint64(1)), Term: new(uint64(1)), ConfState: r.conf}}
	if err := r.storage.ApplySnapshot(snap); err != nil {
		return nil, err
	}
	rn, err := raft.NewRawNode(&raft.Config{
		ID:                        id,
		ElectionTick:              h.cfg.ElectionTicks,
		HeartbeatTick:             h.cfg.HeartbeatTicks,
		Storage:                   r.storage,
		Applied:                   1,
		MaxSizePerMsg:             1 << 20,
		MaxCommittedSizePerReady:  4 << 20,
		MaxUncommittedEntriesSize: 16 << 20,
		MaxInflightMsgs:           64,
		CheckQuorum:               true,
		PreVote:                   true,
		DisableProposalForwarding: true,
		Logger:                    quietLogger{},
	})
	if err != nil {
		return nil, err
	}
	r.rn = rn
	return r, nil
}

// handleReady handles one Ready in the order RAFT-NOTES.md verified for
// synchronous storage: snapshot, entries, hard state, then the messages,
// then apply, then Advance.
func (r *replica) handleReady() {
	rd := r.rn.Ready()
	r.h.stats.Readies++
	r.h.stats.noteReady(&rd)
	if !raft.IsEmptySnap(rd.Snapshot) {
		// Only a follower behind its leader's compacted log gets one; the
		// harness runs without faults, and its followers keep up.
		panic(fmt.Sprintf("bareraft: group %d replica %d got snapshot %d: a follower fell behind compaction", r.g.id, r.id, rd.Snapshot.GetMetadata().GetIndex()))
	}
	if err := r.storage.Append(rd.Entries); err != nil {
		panic(fmt.Sprintf("bareraft: group %d replica %d: append: %v", r.g.id, r.id, err))
	}
	if !raft.IsEmptyHardState(rd.HardState) {
		if err := r.storage.SetHardState(rd.HardState); err != nil {
			panic(fmt.Sprintf("bareraft: group %d replica %d: hard state: %v", r.g.id, r.id, err))
		}
	}
	for _, m := range rd.Messages {
		r.h.send(r.g, m)
	}
	for _, e := range rd.CommittedEntries {
		r.apply(e)
	}
	if rd.SoftState != nil {
		r.leading = rd.SoftState.RaftState == raft.StateLeader
	}
	r.rn.Advance(rd)
	r.maybeCompact()
}

// apply applies one committed entry: a proposal's sequence number is
// marked applied (a second apply is remembered for Verify); a leader's
// empty entry carries nothing. The harness proposes no conf changes.
func (r *replica) apply(e *raftpb.Entry) {
	if e.GetIndex() != r.applied+1 {
		panic(fmt.Sprintf("bareraft: group %d replica %d applies index %d after %d", r.g.id, r.id, e.GetIndex(), r.applied))
	}
	r.applied = e.GetIndex()
	if e.GetType() != raftpb.EntryNormal {
		panic(fmt.Sprintf("bareraft: group %d replica %d: entry %d of type %v: the harness proposes no conf change", r.g.id, r.id, e.GetIndex(), e.GetType()))
	}
	data := e.GetData()
	if len(data) == 0 {
		return
	}
	if len(data) != r.h.cfg.ProposalBytes {
		panic(fmt.Sprintf("bareraft: group %d replica %d: entry %d holds %d bytes, proposals are %d", r.g.id, r.id, e.GetIndex(), len(data), r.h.cfg.ProposalBytes))
	}
	seq := binary.LittleEndian.Uint64(data)
	if seq >= uint64(len(r.g.proposed)) {
		panic(fmt.Sprintf("bareraft: group %d replica %d: entry %d holds sequence %d, only %d made", r.g.id, r.id, e.GetIndex(), seq, len(r.g.proposed)))
	}
	for uint64(len(r.appliedSeq)) <= seq {
		r.appliedSeq = append(r.appliedSeq, false)
	}
	if r.appliedSeq[seq] && r.twice < 0 {
		r.twice = int64(seq)
	}
	r.appliedSeq[seq] = true
	r.appliedCount++
}

// maybeCompact compacts the log as a felixsim broker does: once it holds
// CompactEntriesMin applied entries beyond the CompactKeepEntries kept
// behind the applied index.
func (r *replica) maybeCompact() {
	if r.applied < r.compacted+CompactEntriesMin+CompactKeepEntries {
		return
	}
	to := r.applied - CompactKeepEntries
	if _, err := r.storage.CreateSnapshot(to, r.conf, nil); err != nil {
		panic(fmt.Sprintf("bareraft: group %d replica %d: snapshot at %d: %v", r.g.id, r.id, to, err))
	}
	if err := r.storage.Compact(to); err != nil {
		panic(fmt.Sprintf("bareraft: group %d replica %d: compact to %d: %v", r.g.id, r.id, to, err))
	}
	r.compacted = to
}
