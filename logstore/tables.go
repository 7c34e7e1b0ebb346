package logstore

import (
	"math"
	"slices"
	"sort"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
)

// tables holds the four applied tables and the consumer-group table in
// memory. Only tables.apply, called from Store.install, writes them.
type tables struct {
	log      map[felix.Scope]map[uint64]felix.Record
	state    map[felix.Scope]map[string]StateValue
	position map[felix.Scope]Position
	outbox   map[felix.Scope]map[uint64]Intent
	consumer map[felix.Scope]map[string]statemachine.GroupState
	counts   RowCounts
	// changes, when set (a Follower's store), collects the rows apply
	// changes, per scope, for the follower's checker.
	changes *changeLog
}

// RowCounts is how many rows each table holds.
type RowCounts struct {
	Log           int
	State         int
	Position      int
	Outbox        int
	ConsumerGroup int
}

// newTrackedTables returns empty tables that collect the rows apply
// changes (a Follower's).
func newTrackedTables() tables {
	t := newTables()
	t.changes = newChangeLog()
	return t
}

func newTables() tables {
	return tables{
		log:      map[felix.Scope]map[uint64]felix.Record{},
		state:    map[felix.Scope]map[string]StateValue{},
		position: map[felix.Scope]Position{},
		outbox:   map[felix.Scope]map[uint64]Intent{},
		consumer: map[felix.Scope]map[string]statemachine.GroupState{},
	}
}

func (t *tables) apply(b *Batch) {
	var m map[uint64]felix.Record // the log table of b.Log[i-1]'s scope
	for i := range b.Log {
		r := &b.Log[i]
		if i == 0 || r.Scope != b.Log[i-1].Scope {
			if m = t.log[r.Scope]; m == nil {
				// Sized for the scope's run of rows: a rewritten file's
				// first transaction holds a scope's whole log in one.
				m = make(map[uint64]felix.Record, scopeRunLen(b.Log[i:]))
				t.log[r.Scope] = m
				t.scopeTablesChanged(r.Scope, +1)
			}
		}
		m[r.Offset] = r.Record
		t.counts.Log++
		if t.changes != nil {
			t.changes.of(r.Scope).LogWritten.Add(r.Offset)
		}
	}
	for i := range b.State {
		t.applyState(&b.State[i])
	}
	for i := range b.Positions {
		r := &b.Positions[i]
		old, ok := t.position[r.Scope]
		if !ok {
			t.counts.Position++
			t.scopeTablesChanged(r.Scope, +1)
		}
		t.dropBefore(r.Scope, old.FirstOffset, r.Position.FirstOffset)
		t.position[r.Scope] = r.Position
	}
	for i := range b.Outbox {
		t.applyOutbox(&b.Outbox[i])
	}
	for i := range b.ConsumerGroups {
		r := &b.ConsumerGroups[i]
		t.scopeTablesChanged(r.Scope, applyKeyed(t.consumer, r.Scope, r.Group.Name, WritePut, r.Group, &t.counts.ConsumerGroup))
		if t.changes != nil {
			sc := t.changes.of(r.Scope)
			sc.key(&sc.groups, r.Group.Name)
		}
	}
}

// scopeTablesChanged tells a follower's checker that scope's rows now
// take delta more tables (+1: its first row in one, -1: its last row gone
// from one, 0: neither).
func (t *tables) scopeTablesChanged(scope felix.Scope, delta int) {
	if delta != 0 && t.changes != nil {
		t.changes.tablesChanged(scope, delta)
	}
}

// scopeRunLen is how many rows at the start of rows share the first's scope.
func scopeRunLen(rows []LogRow) int {
	n := 1
	for n < len(rows) && rows[n].Scope == rows[0].Scope {
		n++
	}
	return n
}

// dropBefore drops scope's log rows in [from, to) (a retention step) and,
// for each dropped record, the state rows it wrote last (the keys whose
// version is its offset; a later write of a key gave it a later version).
// It keeps the records' outbox rows: retention never drops an event the
// relay has not confirmed; only an outbox trim deletes outbox rows.
func (t *tables) dropBefore(scope felix.Scope, from, to uint64) {
	m := t.log[scope]
	if to <= from || len(m) == 0 {
		return
	}
	var offsets []uint64
	if to-from <= uint64(len(m)) {
		for o := from; o < to; o++ {
			if _, ok := m[o]; ok {
				offsets = append(offsets, o)
			}
		}
	} else {
		for o := range m {
			if o < to {
				offsets = append(offsets, o)
			}
		}
		slices.Sort(offsets)
	}
	st := t.state[scope]
	for _, o := range offsets {
		for _, op := range m[o].Ops {
			if v, ok := st[op.Key]; ok && v.Version == o {
				t.applyState(&StateRow{Kind: WriteDelete, Scope: scope, Key: op.Key})
			}
		}
		delete(m, o)
		t.counts.Log--
	}
	if t.changes != nil && len(offsets) > 0 {
		t.changes.of(scope).LogDeleted.addRange(offsets[0], offsets[len(offsets)-1]+1)
	}
	if len(m) == 0 {
		delete(t.log, scope)
		t.scopeTablesChanged(scope, -1)
	}
}

func (t *tables) applyState(r *StateRow) {
	t.scopeTablesChanged(r.Scope, applyKeyed(t.state, r.Scope, r.Key, r.Kind, StateValue{Value: r.Value, Version: r.Version}, &t.counts.State))
	if t.changes != nil {
		sc := t.changes.of(r.Scope)
		sc.key(&sc.stateKeys, r.Key)
	}
}

func (t *tables) applyOutbox(r *OutboxRow) {
	t.scopeTablesChanged(r.Scope, applyKeyed(t.outbox, r.Scope, r.Offset, r.Kind, r.Intent, &t.counts.Outbox))
	if t.changes != nil {
		sc := t.changes.of(r.Scope)
		if r.Kind == WriteDelete {
			sc.OutboxDeleted.Add(r.Offset)
		} else {
			sc.OutboxWritten.Add(r.Offset)
		}
	}
}

// applyKeyed puts or deletes key in scope's map of a scoped table, keeping
// the table's row count and dropping a scope's map when it empties: the one
// place the state, outbox and consumer-group tables change. It reports
// +1 when it made scope's map, -1 when it dropped it, else 0.
func applyKeyed[K comparable, V any](table map[felix.Scope]map[K]V, scope felix.Scope, key K, kind WriteKind, value V, rows *int) (scopeMaps int) {
	m := table[scope]
	_, had := m[key]
	switch kind {
	case WritePut:
		if m == nil {
			m = map[K]V{}
			table[scope] = m
			scopeMaps = +1
		}
		m[key] = value
		if !had {
			*rows++
		}
	case WriteDelete:
		if had {
			delete(m, key)
			*rows--
			if len(m) == 0 {
				delete(table, scope)
				scopeMaps = -1
			}
		}
	}
	return scopeMaps
}

// Counts returns how many rows each applied table holds.
func (s *Store) Counts() RowCounts { return s.tab.counts }

// LogGet returns the record at (scope, offset).
func (s *Store) LogGet(scope felix.Scope, offset uint64) (felix.Record, bool) {
	r, ok := s.tab.log[scope][offset]
	return r, ok
}

// LogScan returns up to limit log entries of scope with offset >= from, in
// offset order; limit <= 0 means all.
func (s *Store) LogScan(scope felix.Scope, from uint64, limit int) []felix.Entry {
	m := s.tab.log[scope]
	offsets := logOffsets(nil, m, from)
	if limit > 0 && len(offsets) > limit {
		offsets = offsets[:limit]
	}
	out := make([]felix.Entry, len(offsets))
	for i, o := range offsets {
		out[i] = felix.Entry{Offset: o, Record: m[o]}
	}
	return out
}

// logOffsets appends to dst the offsets of a scope's log table at or above
// from, ascending. A table without gaps (the usual retained window) is
// listed in order without sorting.
func logOffsets(dst []uint64, m map[uint64]felix.Record, from uint64) []uint64 {
	if len(m) == 0 {
		return dst
	}
	lo, hi := uint64(math.MaxUint64), uint64(0)
	for o := range m { //det:ok min and max; no order reaches output
		lo, hi = min(lo, o), max(hi, o)
	}
	if hi-lo == uint64(len(m)-1) {
		// len(m) distinct offsets span exactly [lo, hi]: every one is there.
		if from > hi {
			return dst
		}
		dst = slices.Grow(dst, int(hi-max(lo, from)+1))
		for o := max(lo, from); ; o++ {
			dst = append(dst, o)
			if o == hi {
				return dst
			}
		}
	}
	start := len(dst)
	dst = slices.Grow(dst, len(m))
	for o := range m { //det:ok sorted below
		if o >= from {
			dst = append(dst, o)
		}
	}
	slices.Sort(dst[start:])
	return dst
}

// StateGet returns the value and version of key in scope.
func (s *Store) StateGet(scope felix.Scope, key string) (StateValue, bool) {
	v, ok := s.tab.state[scope][key]
	return v, ok
}

// StateScan returns every state row of scope as WritePut rows, in key order.
func (s *Store) StateScan(scope felix.Scope) []StateRow {
	return stateRowsSorted(scope, s.tab.state[scope])
}

// stateRowsSorted lists a scope's key -> value map as WritePut rows in key
// order: the one place a state map becomes rows.
func stateRowsSorted(scope felix.Scope, m map[string]StateValue) []StateRow {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]StateRow, len(keys))
	for i, k := range keys {
		out[i] = StateRow{Kind: WritePut, Scope: scope, Key: k, Value: m[k].Value, Version: m[k].Version}
	}
	return out
}

// PositionGet returns where scope resumes.
func (s *Store) PositionGet(scope felix.Scope) (Position, bool) {
	p, ok := s.tab.position[scope]
	return p, ok
}

// OutboxScan returns every outbox row of scope as WritePut rows, in offset
// order.
func (s *Store) OutboxScan(scope felix.Scope) []OutboxRow {
	m := s.tab.outbox[scope]
	offsets := make([]uint64, 0, len(m))
	for o := range m {
		offsets = append(offsets, o)
	}
	sort.Slice(offsets, func(i, j int) bool { return offsets[i] < offsets[j] })
	out := make([]OutboxRow, len(offsets))
	for i, o := range offsets {
		out[i] = OutboxRow{Kind: WritePut, Scope: scope, Offset: o, Intent: m[o]}
	}
	return out
}

// ConsumerGroupScan returns the state of every consumer group of scope, in
// name order.
func (s *Store) ConsumerGroupScan(scope felix.Scope) []statemachine.GroupState {
	m := s.tab.consumer[scope]
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]statemachine.GroupState, len(names))
	for i, n := range names {
		out[i] = m[n]
		out[i].Leases = slices.Clone(out[i].Leases) // the caller may change its copy
	}
	return out
}

// Scopes returns every scope with a row in any table, in Scope.Less order.
func (s *Store) Scopes() []felix.Scope {
	seen := map[felix.Scope]bool{}
	for sc := range s.tab.log {
		seen[sc] = true
	}
	for sc := range s.tab.state {
		seen[sc] = true
	}
	for sc := range s.tab.position {
		seen[sc] = true
	}
	for sc := range s.tab.outbox {
		seen[sc] = true
	}
	for sc := range s.tab.consumer {
		seen[sc] = true
	}
	out := make([]felix.Scope, 0, len(seen))
	for sc := range seen {
		out = append(out, sc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out
}
