package logstore

import (
	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
)

// In-place reads of single rows and row counts, for a checker that
// compares a store with another copy row by row instead of listing
// whole tables (the scans sort and copy): ScopeRows for one scope's
// tables, and a group's raft state.

// ScopeRows reads one scope's rows in place, each table looked up once
// (a row look-up by the store's methods hashes the scope each time). It
// is valid until the store's next commit or replay.
type ScopeRows struct {
	position Position
	log      map[uint64]felix.Record
	state    map[string]StateValue
	outbox   map[uint64]Intent
	consumer map[string]statemachine.GroupState
}

// ScopeRows returns scope's rows.
func (s *Store) ScopeRows(scope felix.Scope) ScopeRows {
	return ScopeRows{position: s.tab.position[scope], log: s.tab.log[scope], state: s.tab.state[scope], outbox: s.tab.outbox[scope],
		consumer: s.tab.consumer[scope]}
}

// Position returns the scope's position row (zero without one).
func (r ScopeRows) Position() Position { return r.position }

// LogLen returns how many log rows the scope holds.
func (r ScopeRows) LogLen() int { return len(r.log) }

// LogGet returns the log row at offset.
func (r ScopeRows) LogGet(offset uint64) (felix.Record, bool) {
	rec, ok := r.log[offset]
	return rec, ok
}

// StateLen returns how many state rows the scope holds.
func (r ScopeRows) StateLen() int { return len(r.state) }

// StateGet returns the state row of key.
func (r ScopeRows) StateGet(key string) (StateValue, bool) {
	v, ok := r.state[key]
	return v, ok
}

// OutboxLen returns how many outbox rows the scope holds.
func (r ScopeRows) OutboxLen() int { return len(r.outbox) }

// OutboxGet returns the outbox row at offset.
func (r ScopeRows) OutboxGet(offset uint64) (Intent, bool) {
	in, ok := r.outbox[offset]
	return in, ok
}

// ConsumerGroupLen returns how many consumer groups the scope holds.
func (r ScopeRows) ConsumerGroupLen() int { return len(r.consumer) }

// ConsumerGroupGet returns consumer group name (its leases are the
// store's: do not modify them).
func (r ScopeRows) ConsumerGroupGet(name string) (statemachine.GroupState, bool) {
	g, ok := r.consumer[name]
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
