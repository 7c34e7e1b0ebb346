package logstore

import (
	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
)

// In-place reads of single rows and row counts, for a checker that
// compares a store with another copy row by row instead of listing
// whole tables (the scans sort and copy).

// LogLen returns how many log rows scope holds.
func (s *Store) LogLen(scope felix.Scope) int { return len(s.tab.log[scope]) }

// StateLen returns how many state rows scope holds.
func (s *Store) StateLen(scope felix.Scope) int { return len(s.tab.state[scope]) }

// OutboxLen returns how many outbox rows scope holds.
func (s *Store) OutboxLen(scope felix.Scope) int { return len(s.tab.outbox[scope]) }

// OutboxGet returns scope's outbox row at offset.
func (s *Store) OutboxGet(scope felix.Scope, offset uint64) (Intent, bool) {
	in, ok := s.tab.outbox[scope][offset]
	return in, ok
}

// ConsumerGroupLen returns how many consumer groups scope holds.
func (s *Store) ConsumerGroupLen(scope felix.Scope) int { return len(s.tab.consumer[scope]) }

// ConsumerGroupGet returns scope's consumer group name. Its leases are
// the store's: do not modify them.
func (s *Store) ConsumerGroupGet(scope felix.Scope, name string) (statemachine.GroupState, bool) {
	g, ok := s.tab.consumer[scope][name]
	return g, ok
}

// GroupsLen returns how many groups have persisted raft state.
func (s *Store) GroupsLen() int { return len(s.groups) }

// SnapshotIndex returns the index of group id's stored snapshot (0: none),
// without copying it (Snapshot does).
func (s *Store) SnapshotIndex(id uint64) uint64 {
	if g := s.groups[id]; g != nil {
		return g.snapshot.GetMetadata().GetIndex()
	}
	return 0
}

// RaftEntries returns group id's stored raft entries from index lo up to
// hi-1 in place (the store's: do not modify them), or nil when the stored
// log does not hold them all (compacted entries it does not).
func (s *Store) RaftEntries(id, lo, hi uint64) []*raftpb.Entry {
	g := s.groups[id]
	if g == nil || lo > hi || lo <= g.ents[0].GetIndex() || hi > g.lastIndex()+1 {
		return nil
	}
	return g.ents[lo-g.ents[0].GetIndex() : hi-g.ents[0].GetIndex()]
}
