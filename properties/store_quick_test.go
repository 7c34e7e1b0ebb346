package properties

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/felixsim/felixsim/felix"
)

// The incremental StoreMatchesMemory checked against a deliberately dumb
// version of itself, as raft checks its fast quorum code
// (quorum/quick_test.go): the whole comparison of both sides listed in
// full (scopeRowsMatch over rowsOf), which keeps no bookkeeping.

// wholeVerdict is the dumb version's verdict on the fixture's scope,
// worded as StoreMatchesMemory words it.
func (fx *storeFixture) wholeVerdict() string {
	d := StoreScope{Scope: fx.sc, Tables: fx.d, Outbox: fx.d}
	m := StoreScope{Scope: fx.sc, Tables: fx.m, OutboxStart: fx.m.outboxStart}
	dr, mr := rowsOf(&d), rowsOf(&m)
	if err := scopeRowsMatch(&dr, &mr); err != nil {
		return InvariantStoreMatchesMemory.Errorf("broker-1: group 2: scope %s: %v", fx.sc, err).Error()
	}
	return ""
}

// quickRecord is a record drawn for offset o.
func quickRecord(t *rapid.T, o uint64) felix.Record {
	return felix.Record{Event: felix.EventPublish, Payload: []byte{byte(o), byte(rapid.IntRange(0, 1).Draw(t, "payload"))}}
}

// sides draws which sides a change touches: both (the usual, agreeing
// case), the store's or memory's alone.
func sides(t *rapid.T, fx *storeFixture) []*fakeSide {
	switch rapid.IntRange(0, 19).Draw(t, "sides") {
	case 0:
		return []*fakeSide{fx.d}
	case 1:
		return []*fakeSide{fx.m}
	}
	return []*fakeSide{fx.d, fx.m}
}

// quickStep makes one random change, each as its side reports it.
func quickStep(t *rapid.T, fx *storeFixture) {
	key := fmt.Sprint("k", rapid.IntRange(0, 3).Draw(t, "key"))
	switch rapid.IntRange(0, 15).Draw(t, "change") {
	case 0, 1, 11, 12, 13: // a record appended (the store also writes its outbox row)
		o := fx.m.next
		rec := quickRecord(t, o)
		for _, s := range sides(t, fx) {
			s.putLog(o, rec)
			s.next = o + 1
			s.putState(StoreSlot{Key: key, Value: rec.Payload, Version: o})
			if s == fx.d {
				s.putOutbox(felix.Entry{Offset: o, Record: rec})
			}
		}
	case 2: // a retention step
		to := rapid.Uint64Range(fx.m.first, fx.m.next).Draw(t, "first")
		for _, s := range sides(t, fx) {
			for o := s.first; o < to; o++ {
				if _, ok := s.log[o]; ok {
					s.delLog(o)
				}
			}
			s.first = max(s.first, to)
		}
	case 3:
		for _, s := range sides(t, fx) {
			if rapid.Bool().Draw(t, "delete") {
				s.delState(key)
			} else {
				s.putState(StoreSlot{Key: key, Value: []byte{1}, Version: s.next})
			}
		}
	case 4:
		g := GroupView{Name: key, CommittedOffset: rapid.Uint64Range(0, 3).Draw(t, "committed")}
		for _, s := range sides(t, fx) {
			s.putGroup(g)
		}
	case 5: // an outbox trim: the store deletes rows, memory's start moves
		to := rapid.Uint64Range(fx.m.outboxStart, max(fx.m.outboxStart, fx.m.next)).Draw(t, "trim")
		ss := sides(t, fx)
		for _, s := range ss {
			if s == fx.d {
				for o := fx.m.outboxStart; o < to; o++ {
					s.delOutbox(o)
				}
			}
		}
		if len(ss) != 1 || ss[0] == fx.m {
			fx.m.outboxStart = to
		}
	case 6: // a row of the store rewritten in place, lost or moved
		o := rapid.Uint64Range(0, fx.d.next+2).Draw(t, "offset")
		rec := quickRecord(t, o)
		switch rapid.IntRange(0, 6).Draw(t, "table") {
		case 0:
			fx.d.putLog(o, rec)
		case 1:
			fx.d.putOutbox(felix.Entry{Offset: o, Record: rec})
		case 2:
			fx.d.putState(StoreSlot{Key: key, Value: rec.Payload, Version: o})
		case 3:
			fx.d.delLog(o)
		case 4:
			fx.d.delOutbox(o)
		case 5: // a log row lost, one past the window written: as many rows
			fx.d.delLog(o)
			fx.d.putLog(fx.d.next+1, rec)
		case 6: // the same in the outbox
			fx.d.delOutbox(o)
			fx.d.putOutbox(felix.Entry{Offset: fx.d.next + 1, Record: rec})
		}
	case 7, 14: // a repair: the store takes memory's rows
		fx.repair()
	case 8: // a new shard in memory (a snapshot installed): the store's window, rebuilt
		n := newFakeSide()
		n.first, n.next, n.outboxStart = fx.d.first, max(fx.d.next, fx.d.first), fx.m.outboxStart
		for o := n.first; o < n.next; o++ {
			if r, ok := fx.d.log[o]; ok && rapid.IntRange(0, 4).Draw(t, "keep") > 0 {
				n.log[o] = r
			} else {
				n.log[o] = quickRecord(t, o)
			}
		}
		for k, v := range fx.d.state {
			n.state[k] = v
		}
		for k, v := range fx.m.groups {
			n.groups[k] = v
		}
		n.changes.All = true
		fx.m = n
	case 9: // the store read again from its start
		fx.d.changes.All = true
	case 10: // more keys changed than a side lists: one it did not list
		s := sides(t, fx)[0]
		if rapid.Bool().Draw(t, "group") {
			s.groups[key] = GroupView{Name: key, DeliverNextOffset: 9}
		} else {
			s.state[key] = StoreSlot{Key: key, Value: []byte{9}, Version: 9}
		}
		s.changes.KeysAll = true
	case 15: // memory's outbox start moved back
		fx.m.outboxStart = rapid.Uint64Range(0, fx.m.outboxStart).Draw(t, "start")
	}
}

// repair makes the store hold what memory holds, each row it changes
// reported.
func (fx *storeFixture) repair() {
	d, m := fx.d, fx.m
	d.first, d.next = m.first, m.next
	for o := range d.log {
		if _, ok := m.log[o]; !ok {
			d.delLog(o)
		}
	}
	for o, r := range m.log {
		if dr, ok := d.log[o]; !ok || !sameRecord(&dr, &r) {
			d.putLog(o, r)
		}
	}
	for k := range d.state {
		if _, ok := m.state[k]; !ok {
			d.delState(k)
		}
	}
	for _, s := range m.state {
		d.putState(s)
	}
	for _, g := range m.groups {
		d.putGroup(g)
	}
	for o := range d.outbox {
		if o < min(m.outboxStart, m.next) || o >= m.next {
			d.delOutbox(o)
		}
	}
	for o := min(m.outboxStart, m.next); o < m.next; o++ {
		r, ok := m.log[o]
		if !ok {
			r = d.outbox[o].Record
		}
		d.putOutbox(felix.Entry{Offset: o, Record: felix.Record{Event: r.Event, Payload: r.Payload}})
	}
}

// TestStoreMatchesMemoryAgreesWithWholeComparison: over random sequences of
// store and memory changes (records appended, retention steps, state and
// group writes, outbox trims, on both sides or on one; rows of the store
// rewritten, lost and repaired; a new shard in memory, the store read
// again, a side changing more keys than it lists, memory's outbox start
// moving back), compared at random moments so
// that changes pile up between comparisons, StoreMatchesMemory and the
// whole comparison give the same verdict, word for word.
func TestStoreMatchesMemoryAgreesWithWholeComparison(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		fx := newStoreFixture()
		for step := range rapid.IntRange(1, 60).Draw(t, "steps") {
			quickStep(t, fx)
			if !rapid.Bool().Draw(t, "compare") {
				continue
			}
			want := fx.wholeVerdict()
			got := ""
			if err := fx.check(); err != nil {
				got = err.Error()
			}
			if got != want {
				t.Fatalf("step %d: StoreMatchesMemory says %q, the whole comparison %q", step, got, want)
			}
		}
	})
}
