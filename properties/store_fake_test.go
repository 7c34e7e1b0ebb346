package properties

import (
	"maps"
	"slices"
	"strings"

	"github.com/felixsim/felixsim/felix"
)

// fakeSide is one side of one scope as plain maps, for StoreMatchesMemory's
// tests: it implements ScopeTables and OutboxTable, and its setters note
// each change as the store's follower and the shard would report it.
type fakeSide struct {
	first, next uint64
	log         map[uint64]felix.Record
	state       map[string]StoreSlot
	groups      map[string]GroupView
	outbox      map[uint64]felix.Entry
	outboxStart uint64
	changes     ScopeChanges
}

func newFakeSide() *fakeSide {
	return &fakeSide{log: map[uint64]felix.Record{}, state: map[string]StoreSlot{}, groups: map[string]GroupView{}, outbox: map[uint64]felix.Entry{}}
}

// clone copies a side, sharing no map; its changes start empty.
func (f *fakeSide) clone() *fakeSide {
	c := newFakeSide()
	c.first, c.next, c.outboxStart = f.first, f.next, f.outboxStart
	for k, v := range f.log {
		c.log[k] = v
	}
	for k, v := range f.state {
		c.state[k] = v
	}
	for k, v := range f.groups {
		c.groups[k] = v
	}
	for k, v := range f.outbox {
		c.outbox[k] = v
	}
	return c
}

func addSpan(s *OffsetSpan, o uint64) {
	if !s.Any {
		*s = OffsetSpan{Lo: o, Hi: o, Any: true}
		return
	}
	s.Lo, s.Hi = min(s.Lo, o), max(s.Hi, o)
}

func (f *fakeSide) putLog(o uint64, r felix.Record) { f.log[o] = r; addSpan(&f.changes.LogWritten, o) }
func (f *fakeSide) delLog(o uint64)                 { delete(f.log, o); addSpan(&f.changes.LogDeleted, o) }
func (f *fakeSide) putState(s StoreSlot) {
	f.state[s.Key] = s
	f.changes.StateKeys = append(f.changes.StateKeys, s.Key)
}
func (f *fakeSide) delState(k string) {
	delete(f.state, k)
	f.changes.StateKeys = append(f.changes.StateKeys, k)
}
func (f *fakeSide) putGroup(g GroupView) {
	f.groups[g.Name] = g
	f.changes.Groups = append(f.changes.Groups, g.Name)
}
func (f *fakeSide) putOutbox(e felix.Entry) {
	f.outbox[e.Offset] = e
	addSpan(&f.changes.OutboxWritten, e.Offset)
}
func (f *fakeSide) delOutbox(o uint64) { delete(f.outbox, o); addSpan(&f.changes.OutboxDeleted, o) }

func (f *fakeSide) Window() (uint64, uint64) { return f.first, f.next }
func (f *fakeSide) LogLen() int              { return len(f.log) }
func (f *fakeSide) LogAt(o uint64) (felix.Record, bool) {
	r, ok := f.log[o]
	return r, ok
}
func (f *fakeSide) StateLen() int                         { return len(f.state) }
func (f *fakeSide) StateAt(k string) (StoreSlot, bool)    { s, ok := f.state[k]; return s, ok }
func (f *fakeSide) GroupsLen() int                        { return len(f.groups) }
func (f *fakeSide) GroupAt(n string) (GroupView, bool)    { g, ok := f.groups[n]; return g, ok }
func (f *fakeSide) OutboxLen() int                        { return len(f.outbox) }
func (f *fakeSide) OutboxAt(o uint64) (felix.Entry, bool) { e, ok := f.outbox[o]; return e, ok }

func (f *fakeSide) LogRows() []felix.Entry {
	var out []felix.Entry
	for o, r := range f.log {
		out = append(out, felix.Entry{Offset: o, Record: r})
	}
	return sortedBy(out, func(a, b felix.Entry) int { return cmpU64(a.Offset, b.Offset) })
}

func (f *fakeSide) StateRows() []StoreSlot {
	return sortedBy(slices.Collect(maps.Values(f.state)), func(a, b StoreSlot) int { return strings.Compare(a.Key, b.Key) })
}

func (f *fakeSide) GroupRows() []GroupView {
	return sortedBy(slices.Collect(maps.Values(f.groups)), func(a, b GroupView) int { return strings.Compare(a.Name, b.Name) })
}

func (f *fakeSide) OutboxRows() []felix.Entry {
	return sortedBy(slices.Collect(maps.Values(f.outbox)), func(a, b felix.Entry) int { return cmpU64(a.Offset, b.Offset) })
}

// sortedBy sorts rows by cmp and returns them.
func sortedBy[R any](rows []R, cmp func(a, b R) int) []R {
	slices.SortFunc(rows, cmp)
	return rows
}

// fakeRaft is a stored raft log of one group, by index.
type fakeRaft map[uint64]RaftEntry

func (r fakeRaft) RaftEntry(i uint64) (uint64, []byte, bool) {
	e, ok := r[i]
	return e.Term, e.Data, ok
}

// fakeScope wraps a side as a StoreScope of one side (durable: with its
// outbox rows; memory: with its outbox start and the bookkeeping v),
// handing over the changes noted since the last call.
func (f *fakeSide) scope(sc felix.Scope, durable bool, v *ScopeVerified) StoreScope {
	s := StoreScope{Scope: sc, Tables: f, Changes: f.changes}
	f.changes = ScopeChanges{}
	if durable {
		s.Outbox = f
	} else {
		s.OutboxStart, s.Verified = f.outboxStart, v
	}
	return s
}
