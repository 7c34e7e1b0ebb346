package logstore

import (
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

// RaftEntry returns the term and data of group id's stored raft entry at
// index, if the stored log holds it (compacted entries it does not). The
// data is the store's: do not modify it.
func (s *Store) RaftEntry(id, index uint64) (term uint64, data []byte, ok bool) {
	g := s.groups[id]
	if g == nil || index <= g.ents[0].GetIndex() || index > g.lastIndex() {
		return 0, nil, false
	}
	e := g.ents[index-g.ents[0].GetIndex()]
	return e.GetTerm(), e.GetData(), true
}
