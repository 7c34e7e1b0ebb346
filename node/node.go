package node

import (
	"fmt"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/logstore"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/wire"
)

// Node is one broker. It is driven by its host from one goroutine: Tick on
// the node's clock, HandlePeer and HandleRequest as messages arrive. Every
// call runs the node's processing cycle to quiescence before returning.
type Node struct {
	cfg    Config
	host   Host
	store  *logstore.Store
	logger *Logger
	meta   *Metadata
	topo   topology
	// groups[i] is group MetaGroup+i.
	raftGroups []*raftGroup
	// ticks counts Tick calls since boot; pending timeouts are measured in it.
	ticks uint64
	// seq numbers this incarnation's proposals and reads.
	seq    uint64
	writes pendingWrites
	reads  pendingReads
	out    outbound
	// rdsBuf is round's reusable scratch space (one entry per group);
	// batch is the round's store batch, emptied after each commit (the
	// store copies what it keeps); touchedBuf and repliesBuf are
	// applyCommitted's and round's scratch.
	rdsBuf     []groupReady
	batch      logstore.Batch
	touchedBuf tenantSet
	repliesBuf []reply
	stats      Stats
	// rewrittenBytes is the store file's size after the last rewrite.
	rewrittenBytes int64
	// failed is set when the store refused a write: the node stops (fail
	// stop) and must be restarted from its store.
	failed error
	// late holds the PartialApply defect's state operations until the
	// next round; at most the records one round applies.
	late []lateState
	// appliedBuf, persistedBuf and termsBuf are the Observer's reused
	// AppliedRecord, PersistedGroup and stored terms.
	appliedBuf   *AppliedRecord
	persistedBuf *PersistedGroup
	termsBuf     []uint64
	// roundBuf is the Observer's reused DurableRound.
	roundBuf DurableRound
	// reached are the moments the current round reached (moments.go).
	reached momentSet
	// trace emits the abstract trace; nil when Config.Trace is nil.
	trace *tracer
	// incarnationsDue is set when the metadata group applied a stream
	// create or delete: the next round has the shard groups this node
	// leads carry it into their logs at once, not at the next
	// versionReportTicks.
	incarnationsDue bool
}

// Open starts a broker incarnation from cfg.FS alone: on an empty store it
// bootstraps every group from cfg.Bootstrap; otherwise it rebuilds raft
// state and every scope's shard from the store. incarnation must differ
// between boots of the same node (the host's boot counter).
func Open(cfg Config, host Host, incarnation uint64) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	store, err := logstore.Open(logstore.Options{FS: cfg.FS, Defects: cfg.Defects.storeDefects()})
	if err != nil {
		return nil, fmt.Errorf("node %d: open store: %w", cfg.ID, err)
	}
	n := &Node{cfg: cfg, host: host, store: store}
	n.observeRecovered()
	n.logger = NewLogger(cfg.ID, host.NowNs)
	n.writes = newPendingWrites(incarnation)
	n.reads = newPendingReads(incarnation)
	n.out = newOutbound(cfg.Peers)
	if len(store.Groups()) == 0 && !cfg.Join {
		if err := n.bootstrap(); err != nil {
			store.Close()
			return nil, err
		}
	}
	if err := n.recover(); err != nil {
		store.Close()
		return nil, err
	}
	// The file holds all the history since its last rewrite, and a
	// restart cannot tell how much of it is current: count it as not
	// rewritten, so the first quiet point after an open over
	// RewriteBytesMin rewrites it. (Taking the opened size as the
	// baseline let a broker that restarts more often than its file
	// doubles grow the file without bound, and its replay with it.)
	n.rewrittenBytes = 0
	if cfg.Observer != nil {
		cfg.Observer.Opened(n)
	}
	n.trace = newTracer(cfg.Trace, cfg.ID)
	n.trace.restart(n)
	n.process()
	return n, nil
}

// bootstrap writes every group's initial snapshot (index 1, term 1, all
// peers voting; the metadata group's carries the bootstrap metadata) in
// one commit.
func (n *Node) bootstrap() error {
	meta := newMetadata(&n.cfg.Bootstrap, n.cfg.Peers)
	topo := newTopology(meta.Streams)
	b := &logstore.Batch{}
	for i := 0; i < topo.groups; i++ {
		snap := &raftpb.Snapshot{Metadata: &raftpb.SnapshotMetadata{
			Index:     new(uint64(1)),
			Term:      new(uint64(1)),
			ConfState: &raftpb.ConfState{Voters: append([]uint64(nil), n.cfg.Peers...)},
		}}
		if i == 0 {
			snap.Data = encodeMetadata(meta)
		}
		b.Groups = append(b.Groups, logstore.GroupWrite{Group: MetaGroup + uint64(i), Snapshot: snap})
	}
	if err := n.store.Commit(b); err != nil {
		return fmt.Errorf("node %d: bootstrap commit: %w", n.cfg.ID, err)
	}
	return nil
}

// recover rebuilds the metadata, every group's raft node and every scope's
// shard from the store.
func (n *Node) recover() error {
	snap, err := n.store.RaftStorage(MetaGroup).Snapshot()
	if err != nil {
		return fmt.Errorf("node %d: metadata snapshot: %w", n.cfg.ID, err)
	}
	meta, bootFeatures, err := n.bootMetadata(snap)
	if err != nil {
		return err
	}
	n.meta = meta
	metaApplied, metaConf, metaConfIndex, err := n.foldMeta(snap)
	if err != nil {
		return err
	}
	if err := n.checkVersions(n.meta.Finalized); err != nil {
		return fmt.Errorf("node %d refuses to start: %w", n.cfg.ID, err)
	}
	n.topo = newTopology(n.meta.Streams)
	for i := 0; i < n.topo.groups; i++ {
		g := &raftGroup{id: MetaGroup + uint64(i), scopes: map[string]*statemachine.Shard{}, features: bootFeatures}
		if g.id != MetaGroup {
			g.spec, g.shard = n.topo.specOf(g.id)
		} else {
			g.applied, g.confState, g.confIndex = metaApplied, metaConf, metaConfIndex
		}
		n.raftGroups = append(n.raftGroups, g)
	}
	if err := n.rebuildScopes(); err != nil {
		return err
	}
	for _, g := range n.raftGroups {
		snap, err := n.store.RaftStorage(g.id).Snapshot()
		if err != nil {
			return fmt.Errorf("node %d: group %d snapshot: %w", n.cfg.ID, g.id, err)
		}
		g.applied = max(g.applied, snap.GetMetadata().GetIndex())
		if err := n.recoverFeatures(g, snap); err != nil {
			return err
		}
		if err := n.recoverIncarnation(g, snap); err != nil {
			return err
		}
		if g.id != MetaGroup {
			if err := n.recoverConfState(g, snap); err != nil {
				return err
			}
		}
		if err := n.startRaft(g); err != nil {
			return err
		}
	}
	return nil
}

// bootMetadata is the metadata a booting node starts from: its stored
// metadata snapshot's, or, for a joining node that has not received one
// yet, its bootstrap topology with nothing else (the metadata snapshot it
// receives replaces it). bootFeatures are the finalized features a shard
// group starts with before its own snapshot says more: the bootstrap's.
// A joining node has none: its metadata snapshot is the cluster's of the
// day it was sent, not the bootstrap, and each of its shard groups learns
// its features from the snapshot it installs (taking them from the
// metadata let a restarted replacement gate commits before its group's
// log finalized the feature, unlike every other replica).
func (n *Node) bootMetadata(snap *raftpb.Snapshot) (*Metadata, statemachine.Features, error) {
	if snap.GetMetadata().GetIndex() == 0 && n.cfg.Join {
		return newMetadata(&Bootstrap{Streams: n.cfg.Bootstrap.Streams}, nil), statemachine.Features{}, nil
	}
	meta, err := decodeMetadata(snap.GetData())
	if err != nil {
		return nil, statemachine.Features{}, fmt.Errorf("node %d: metadata snapshot: %w", n.cfg.ID, err)
	}
	if n.cfg.Join {
		return meta, statemachine.Features{}, nil
	}
	return meta, featuresOf(meta.Finalized), nil
}

// foldMeta applies the metadata group's stored committed entries after
// its snapshot, so that a booting node knows its cluster's streams,
// members and finalized features before anything else; it returns the
// index applied, where raft resumes, and the group's membership then.
func (n *Node) foldMeta(snap *raftpb.Snapshot) (applied uint64, cs *raftpb.ConfState, confIndex uint64, err error) {
	return n.foldMetaTo(snap, 0)
}

// foldMetaTo is foldMeta up to index to (0: the stored commit index).
func (n *Node) foldMetaTo(snap *raftpb.Snapshot, to uint64) (applied uint64, cs *raftpb.ConfState, confIndex uint64, err error) {
	applied = snap.GetMetadata().GetIndex()
	cs = raftpb.EnsureConfState(snap.GetMetadata().GetConfState())
	ents, err := n.storedEntries(MetaGroup, applied, to)
	if err != nil {
		return 0, nil, 0, err
	}
	for _, e := range ents {
		applied = e.GetIndex()
		if e.GetType() != raftpb.EntryType_EntryNormal {
			if next, at := confFold(cs, []*raftpb.Entry{e}); at != 0 {
				cs, confIndex = next, at
			}
			continue
		}
		if len(e.GetData()) == 0 {
			continue
		}
		c, err := decodeCommand(e.GetData())
		if err != nil {
			continue // every replica skips it at apply too
		}
		_ = n.meta.apply(&c, members(cs), n.versionsUnchecked()) // a refusal changes nothing
	}
	return applied, cs, confIndex, nil
}

// recoverConfState sets shard group g's membership at its applied index:
// its compaction point's, with the conf changes stored after it folded in.
func (n *Node) recoverConfState(g *raftGroup, snap *raftpb.Snapshot) error {
	g.confState = raftpb.EnsureConfState(snap.GetMetadata().GetConfState())
	return n.foldConfState(g, snap.GetMetadata().GetIndex())
}

// foldConfState folds into g's membership the conf changes stored after
// index from up to its applied index.
func (n *Node) foldConfState(g *raftGroup, from uint64) error {
	if g.applied <= from {
		return nil
	}
	ents, err := n.storedEntries(g.id, from, g.applied)
	if err != nil {
		return err
	}
	cs, at := confFold(g.confState, ents)
	g.confState = cs
	if at != 0 {
		g.confIndex = at
	}
	return nil
}

// recoverFeatures finds the feature markers shard group g applied after
// its snapshot at index from (up to its stored applied index).
func (n *Node) recoverFeatures(g *raftGroup, snap *raftpb.Snapshot) error {
	from := snap.GetMetadata().GetIndex()
	if g.id == MetaGroup {
		return nil
	}
	if err := restoreSnapshotFeatures(g, snap.GetData(), from); err != nil {
		return fmt.Errorf("node %d: %w", n.cfg.ID, err)
	}
	return n.foldFeatures(g, from)
}

// foldFeatures applies to g the feature markers stored after index from
// up to its applied index.
func (n *Node) foldFeatures(g *raftGroup, from uint64) error {
	return n.storedCommands(g, from, cmdFeature, func(index uint64, c *command) {
		if c.feature == FeatureAtomicCommit && !g.features.AtomicCommitFinalized {
			g.features.AtomicCommitFinalized, g.featuresIndex = true, index
		}
	})
}

// storedCommands calls fn, in log order, with each command of kind that
// shard group g stored after index from up to its applied index. An entry
// that fails to decode is skipped: every replica skipped it at apply too.
func (n *Node) storedCommands(g *raftGroup, from uint64, kind cmdKind, fn func(index uint64, c *command)) error {
	ents, err := n.storedEntries(g.id, from, g.applied)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if len(e.GetData()) < 2 || e.GetData()[1] != uint8(kind) {
			continue
		}
		if c, err := decodeCommand(e.GetData()); err == nil {
			fn(e.GetIndex(), &c)
		}
	}
	return nil
}

// storedEntries are group id's stored entries after index from up to
// index to (0: the stored commit index).
func (n *Node) storedEntries(id, from, to uint64) ([]*raftpb.Entry, error) {
	rs := n.store.RaftStorage(id)
	if to == 0 {
		hs, _, err := rs.InitialState()
		if err != nil {
			return nil, fmt.Errorf("node %d: group %d hard state: %w", n.cfg.ID, id, err)
		}
		to = hs.GetCommit()
	}
	if last, _ := rs.LastIndex(); to > last {
		to = last
	}
	if to <= from {
		return nil, nil
	}
	ents, err := rs.Entries(from+1, to+1, ^uint64(0))
	if err != nil {
		return nil, fmt.Errorf("node %d: group %d entries %d..%d: %w", n.cfg.ID, id, from+1, to, err)
	}
	return ents, nil
}

// startRaft creates g's RawNode over the store, resuming after g.applied.
func (n *Node) startRaft(g *raftGroup) error {
	rc := &raft.Config{
		ID:                        n.cfg.ID,
		ElectionTick:              n.cfg.ElectionTicks,
		HeartbeatTick:             n.cfg.HeartbeatTicks,
		Storage:                   &groupStorage{GroupStorage: n.store.RaftStorage(g.id), n: n, g: g},
		Applied:                   g.applied,
		MaxSizePerMsg:             1 << 20,
		MaxCommittedSizePerReady:  4 << 20,
		MaxUncommittedEntriesSize: 16 << 20,
		MaxInflightMsgs:           64,
		CheckQuorum:               true,
		PreVote:                   true,
		// A shard group proposes only where it leads: forwarded over a
		// network that may duplicate messages, one client copy of a write
		// could be appended twice (LandsAtMostOncePerDelivery). The
		// metadata group's proposals are idempotent (a version report) and
		// some come from followers, so it keeps forwarding.
		DisableProposalForwarding: g.id != MetaGroup,
		Logger:                    n.logger,
	}
	rn, err := raft.NewRawNode(rc)
	if err != nil {
		return fmt.Errorf("node %d: group %d: start raft: %w", n.cfg.ID, g.id, err)
	}
	g.rn = rn
	return nil
}

// Tick advances every group's raft clock by one tick and expires pending
// requests; the host calls it every Config.TickNs on the node's clock.
func (n *Node) Tick() {
	if n.failed != nil {
		return
	}
	n.ticks++
	n.cfg.Density.noteTick(len(n.raftGroups))
	for _, g := range n.raftGroups {
		g.rn.Tick()
	}
	timeoutTicks := uint64((n.cfg.PendingTimeoutNs + n.cfg.TickNs - 1) / n.cfg.TickNs)
	n.reproposePending()
	n.writes.expire(n.ticks, timeoutTicks)
	n.reads.expire(n.ticks, timeoutTicks)
	n.tickFleet()
	n.checkRetention()
	n.maybeProcess()
}

// HandlePeer steps every raft message of a batch from another broker.
func (n *Node) HandlePeer(b *PeerBatch) {
	if n.failed != nil {
		return
	}
	for _, gm := range b.Msgs {
		g := n.raftGroup(gm.Group)
		switch {
		case gm.Msg == nil:
			n.logger.Warningf("dropped an empty message for group %d from %d", gm.Group, b.From)
			continue
		case g == nil:
			n.logger.Warningf("dropped a %s for unknown group %d from %d", gm.Msg.GetType(), gm.Group, b.From)
			continue
		case gm.Msg.GetTo() != n.cfg.ID || gm.Msg.GetFrom() != b.From:
			n.logger.Warningf("dropped a %s for group %d addressed %d -> %d in a batch %d -> %d", gm.Msg.GetType(), gm.Group, gm.Msg.GetFrom(), gm.Msg.GetTo(), b.From, n.cfg.ID)
			continue
		}
		if err := g.rn.Step(gm.Msg); err != nil {
			n.logger.Warningf("group %d: step %s from %d: %v", g.id, gm.Msg.GetType(), b.From, err)
		}
	}
	n.maybeProcess()
}

// group returns the group with id, or nil.
func (n *Node) raftGroup(id uint64) *raftGroup {
	if id < MetaGroup || id >= MetaGroup+uint64(len(n.raftGroups)) {
		return nil
	}
	return n.raftGroups[id-MetaGroup]
}

// fail stops the node for good: its in-memory state may be ahead of its
// store, so only a restart from the store may continue.
func (n *Node) fail(err error) {
	if n.failed == nil {
		n.failed = err
		n.logger.Errorf("node failed: %v", err)
	}
}

// Failed returns why the node stopped, or nil while it runs. A failed node
// ignores every input; its host should restart it from its store.
func (n *Node) Failed() error { return n.failed }

// ID is the node's raft node id.
func (n *Node) ID() uint64 { return n.cfg.ID }

// Logger is the node's raft logger, for diagnostics.
func (n *Node) Logger() *Logger { return n.logger }

// Close releases the store; the node must not be used afterwards.
func (n *Node) Close() error { return n.store.Close() }

// answer queues nothing: answers go straight to the host, and only from
// points after the store has made every effect they report durable.
func (n *Node) answer(to uint64, id uint64, body wire.AnswerBody) {
	n.trace.answer(to, id, body)
	n.host.SendAnswer(to, &wire.Answer{ID: id, Body: body})
}

// Stats counts a node's work since boot, for performance reports.
type Stats struct {
	// Cycles are processing cycles run; Rounds the Ready rounds in them;
	// Commits the store commits (fsyncs) made; Rewrites the store file
	// rewrites asked for.
	Cycles, Rounds, Commits, Rewrites uint64
	// MembershipChanges are conf changes applied (every group).
	MembershipChanges uint64
	// Compactions are raft log compactions made; SnapshotsBuilt the
	// snapshots built for raft to send, SnapshotsSent those sent and
	// SnapshotsInstalled those received and installed.
	Compactions, SnapshotsBuilt, SnapshotsSent, SnapshotsInstalled uint64
	// StoreBytes is the store file's current size; LogRows the log-table
	// rows it holds; RaftLogEntries the raft entries it holds, over every
	// group.
	StoreBytes     int64
	LogRows        int
	RaftLogEntries uint64
}

// Stats returns the node's counters.
func (n *Node) Stats() Stats {
	st := n.stats
	st.StoreBytes = n.store.Stats().FileBytes
	st.LogRows = n.store.Counts().Log
	for _, g := range n.raftGroups {
		rs := n.store.RaftStorage(g.id)
		first, _ := rs.FirstIndex()
		last, _ := rs.LastIndex()
		st.RaftLogEntries += last + 1 - first
	}
	return st
}

// StoreRecovery is what opening the store found at its file's tail (a
// transaction a crash left unfinished, and how much was cut).
func (n *Node) StoreRecovery() logstore.Recovery { return n.store.Recovery() }
