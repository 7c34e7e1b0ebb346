package node

import (
	"fmt"
	"math"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/logstore"
	"github.com/felixsim/felixsim/moment"
	"github.com/felixsim/felixsim/statemachine"
)

// Observer is shown a node's steps as they happen, so that a simulator
// can check invariants throughout a run and not only at its end. Its
// methods must not change the node; they may read it through the views
// they are handed (and Node's read-only methods).
type Observer interface {
	// Opened is called once Open has rebuilt the node from its store,
	// before the node processes anything.
	Opened(n *Node)
	// Persisted is called after a store commit made a Ready round durable,
	// once per group whose raft state the commit wrote; p is reused
	// afterwards.
	Persisted(p *PersistedGroup)
	// Applied is called right after a written record was applied to its
	// scope's shard, before anything else happens on the node; the record
	// is reused afterwards.
	Applied(a *AppliedRecord)
	// Dropped is called right after retention dropped a prefix of a
	// scope's log on this node, at the same log position on every replica.
	Dropped(d *DroppedPrefix)
	// RoundDurable is called once per Ready round whose store commit
	// returned, after Persisted for its groups and before anything else
	// (messages, answers, Advance); r is reused afterwards.
	RoundDurable(n *Node, r *DurableRound)
	// Recovered is called once Open has opened the store, before the
	// node rebuilds anything from it or starts raft; r is valid only
	// during the call.
	Recovered(r *RecoveredStore)
}

// DurableRound is one Ready round a store commit just made durable.
type DurableRound struct {
	// Groups are the raft groups that had a Ready in the round, ascending:
	// the only ones whose memory or store the round changed; Applied[i]
	// is Groups[i]'s applied index once the round is durable.
	Groups  []uint64
	Applied []uint64
	// Acks are the appends the round acknowledges, in the order raft
	// produced them: each MsgAppResp it is about to send, and a leader's
	// own append of new entries (which raft counts towards the quorum).
	Acks []AppendAck
	// Rare is set when the round installed a snapshot, compacted a raft
	// log, dropped a retained prefix or appended a membership change: the
	// rounds whose writes a restart reads back least often, which a
	// checker sampling rounds should not skip.
	Rare bool
}

// DroppedPrefix is one retention step on one node: when the scope's next
// offset was AtNext, every record below Below was dropped (the window
// became [Below, AtNext)). WithWrite marks retention by count, part of
// the write that made the log AtNext long; otherwise an age retain
// command applied on its own between the records AtNext-1 and AtNext.
type DroppedPrefix struct {
	Node      uint64
	Scope     felix.Scope
	AtNext    uint64
	Below     uint64
	WithWrite bool
}

// HardState is raft's durable vote state of one group: term, the node
// voted for in that term (0: none) and commit index.
type HardState struct {
	Term, Vote, Commit uint64
}

// StoredEntry is one raft log entry as a store holds it; Data is the
// store's: do not modify.
type StoredEntry struct {
	Index, Term uint64
	Data        []byte
}

// PersistedGroup is one group's raft persistence that a store commit
// just made durable.
type PersistedGroup struct {
	Node, Group uint64
	// HardState is the hard state raft asked to persist, when the round
	// changed it: what raft now relies on being durable.
	HardState    HardState
	HasHardState bool
	// StoredTerms (reused afterwards: copy to keep) are the terms of the group's stored log from index
	// FirstIndex, the entry before the first one written (the seam), to
	// the store's last entry; empty when the round wrote no entries.
	FirstIndex  uint64
	StoredTerms []uint64
	// AppliedIndex is the group's applied index once the round is durable
	// (its applied rows are in the same commit); SnapshotIndex is the
	// index of the snapshot the round installed (0: none).
	AppliedIndex, SnapshotIndex uint64
}

// AppliedRecord is a record a node just applied to a scope's shard.
type AppliedRecord struct {
	Node   uint64
	Scope  felix.Scope
	Offset uint64
	// Record is the record as applied; Shard is the shard it was applied
	// to, to be read (StateGet, ReadFrom), never changed.
	Record *felix.Record
	Shard  *statemachine.Shard
}

// StoredGroupLog is one group's raft log and hard state as the node's
// store holds them.
type StoredGroupLog struct {
	Group     uint64
	HardState HardState
	// Entries are every stored entry after the snapshot, ascending.
	Entries []StoredEntry
}

// StoredRaftLogs returns every group's stored raft log and hard state,
// ascending by group.
func (n *Node) StoredRaftLogs() ([]StoredGroupLog, error) {
	out := make([]StoredGroupLog, 0, len(n.raftGroups))
	for _, g := range n.raftGroups {
		rs := n.store.RaftStorage(g.id)
		hs, _, err := rs.InitialState()
		if err != nil {
			return nil, fmt.Errorf("node %d: group %d stored hard state: %w", n.cfg.ID, g.id, err)
		}
		ents, err := storedFrom(rs, 0)
		if err != nil {
			return nil, fmt.Errorf("node %d: group %d stored log: %w", n.cfg.ID, g.id, err)
		}
		out = append(out, StoredGroupLog{Group: g.id, HardState: hardStateOf(hs), Entries: ents})
	}
	return out, nil
}

// storedFrom returns the stored entries from index lo (or the first one
// stored, if later) to the last.
func storedFrom(rs *logstore.GroupStorage, lo uint64) ([]StoredEntry, error) {
	first, _ := rs.FirstIndex()
	last, _ := rs.LastIndex()
	lo = max(lo, first)
	if last < lo {
		return nil, nil
	}
	ents, err := rs.Entries(lo, last+1, math.MaxUint64)
	if err != nil {
		return nil, err
	}
	out := make([]StoredEntry, len(ents))
	for i, e := range ents {
		out[i] = StoredEntry{Index: e.GetIndex(), Term: e.GetTerm(), Data: e.GetData()}
	}
	return out, nil
}

// hardStateOf converts raft's hard state (nil: none stored yet).
func hardStateOf(hs *raftpb.HardState) HardState {
	return HardState{Term: hs.GetTerm(), Vote: hs.GetVote(), Commit: hs.GetCommit()}
}

// observePersisted shows the observer every group a round's store
// commit just made durable.
func (n *Node) observePersisted(rds []groupReady) {
	for i := range rds {
		rd := &rds[i].rd
		installed := !raft.IsEmptySnap(rd.Snapshot)
		if len(rd.Entries) == 0 && raft.IsEmptyHardState(rd.HardState) && !installed {
			continue
		}
		if n.persistedBuf == nil {
			n.persistedBuf = &PersistedGroup{}
		}
		p := n.persistedBuf
		*p = PersistedGroup{Node: n.cfg.ID, Group: rds[i].g.id, AppliedIndex: rds[i].g.applied}
		if installed {
			p.SnapshotIndex = rd.Snapshot.GetMetadata().GetIndex()
		}
		if !raft.IsEmptyHardState(rd.HardState) {
			p.HardState, p.HasHardState = hardStateOf(rd.HardState), true
		}
		if len(rd.Entries) > 0 {
			p.FirstIndex, p.StoredTerms = n.storedTermsFrom(p.Group, rd.Entries[0].GetIndex()-1)
		}
		n.cfg.Observer.Persisted(p)
		*p = PersistedGroup{}
	}
}

// storedTermsFrom returns the index and terms of group's stored entries
// from lo (or the first one stored, if later) to the last; cheap, unlike
// Entries, which sizes every entry.
func (n *Node) storedTermsFrom(group, lo uint64) (uint64, []uint64) {
	rs := n.store.RaftStorage(group)
	first, _ := rs.FirstIndex()
	last, _ := rs.LastIndex()
	lo = max(lo, first)
	if last < lo {
		return lo, nil
	}
	terms := n.termsBuf[:0]
	for i := lo; i <= last; i++ {
		t, err := rs.Term(i)
		if err != nil {
			panic(fmt.Sprintf("node %d: group %d: the store cannot read back entry %d of [%d, %d] it just committed: %v", n.cfg.ID, group, i, lo, last, err))
		}
		terms = append(terms, t)
	}
	n.termsBuf = terms[:0]
	return lo, terms
}

// observeApplied shows the observer a record just applied, in a reused
// AppliedRecord (the observer must not keep it).
func (n *Node) observeApplied(scope felix.Scope, offset uint64, rec *felix.Record, s *statemachine.Shard) {
	if n.cfg.Observer == nil {
		return
	}
	if n.appliedBuf == nil {
		n.appliedBuf = &AppliedRecord{}
	}
	*n.appliedBuf = AppliedRecord{Node: n.cfg.ID, Scope: scope, Offset: offset, Record: rec, Shard: s}
	n.cfg.Observer.Applied(n.appliedBuf)
	*n.appliedBuf = AppliedRecord{}
}

// observeDropped tells the observer that retention moved scope's window
// to start at below when its next offset was atNext.
func (n *Node) observeDropped(scope felix.Scope, atNext, below uint64, withWrite bool) {
	n.reached.add(moment.Compacted)
	if n.cfg.Observer == nil {
		return
	}
	n.cfg.Observer.Dropped(&DroppedPrefix{Node: n.cfg.ID, Scope: scope, AtNext: atNext, Below: below, WithWrite: withWrite})
}

// observeRound shows the observer a round just made durable: the ids of
// the groups that had a Ready in it.
func (n *Node) observeRound(rds []groupReady) {
	r := &n.roundBuf
	r.Groups, r.Applied, r.Acks = r.Groups[:0], r.Applied[:0], r.Acks[:0]
	for i := range rds {
		r.Groups = append(r.Groups, rds[i].g.id)
		r.Applied = append(r.Applied, rds[i].g.applied)
		r.Acks = appendAcks(r.Acks, n.cfg.ID, &rds[i])
	}
	r.Rare = n.reached.has(moment.SnapshotInstalled) || n.reached.has(moment.Compacted) || n.reached.has(moment.MembershipInFlight)
	n.cfg.Observer.RoundDurable(n, r)
}
