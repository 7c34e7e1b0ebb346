package properties

import (
	"bytes"
	"slices"
)

// OffsetSpan is the smallest and largest of the offsets a side's changes
// touched in one table. The zero value holds none.
type OffsetSpan struct {
	Lo, Hi uint64
	// Any is set when the span holds an offset.
	Any bool
}

// ScopeChanges is what one side changed in one scope's rows since the
// scope's last comparison: the rows StoreMatchesMemory must read again.
type ScopeChanges struct {
	// All: anything may have changed (the store read again from its
	// start, a new shard in memory): nothing verified before stands.
	All bool
	// KeysAll: any state key or consumer group may have changed (more
	// changed than the side kept a list of).
	KeysAll bool
	// The offsets of log and outbox rows written and deleted.
	LogWritten, LogDeleted       OffsetSpan
	OutboxWritten, OutboxDeleted OffsetSpan
	// StateKeys and Groups name state keys and consumer groups written or
	// deleted (repeats allowed).
	StateKeys []string
	Groups    []string
}

// ScopeVerified is what a scope's last comparison verified: where the
// next one starts. The zero value has verified nothing.
type ScopeVerified struct {
	// Valid is set when the comparison passed.
	Valid bool
	// First and Next were the retained window [First, Next): every log
	// row in it was equal on both sides.
	First, Next uint64
	// OutboxFrom was the outbox start: the store held exactly the outbox
	// rows [OutboxFrom, Next), each in the window holding its record's
	// event.
	OutboxFrom uint64
}

// scopeMatches compares one scope's window, log, state, consumer groups
// and outbox, reading only what may have changed since m.Verified (all of
// it when nothing is verified, or either side changed everything): the
// log and outbox rows from where the verified prefix ends or a change on
// either side cut it, and the state keys and consumer groups either side
// changed, with each table's row count. On a difference it compares the
// two sides whole to name the first one (scopeMatchesWhole) and keeps
// nothing verified; else it records what it verified.
func scopeMatches(d, m *StoreScope) error {
	var v ScopeVerified
	if m.Verified != nil {
		v, *m.Verified = *m.Verified, ScopeVerified{}
	}
	first, next := m.Tables.Window()
	if df, dn := d.Tables.Window(); df != first || dn != next {
		return scopeMatchesWhole(d, m)
	}
	start := min(m.OutboxStart, next)
	logStart, outboxStart, keysAll := first, start, true
	if v.Valid && !d.Changes.All && !m.Changes.All && first >= v.First && next >= v.Next {
		logStart = logFrom(v.Next, first, next, &d.Changes, &m.Changes)
		outboxStart = outboxFrom(&v, start, next, &d.Changes, &m.Changes)
		keysAll = d.Changes.KeysAll || m.Changes.KeysAll
	}
	if !logMatchesFrom(d, m, logStart) || !keyedMatch(d, m, keysAll) || !outboxMatchesFrom(d, m, outboxStart) {
		return scopeMatchesWhole(d, m)
	}
	if m.Verified != nil {
		*m.Verified = ScopeVerified{Valid: true, First: first, Next: next, OutboxFrom: start}
	}
	return nil
}

// logFrom is where the log's comparison starts: the verified prefix's end
// (to), cut at the lowest row either side wrote below it or deleted at or
// above the window's first offset (retention deletes below it).
func logFrom(to, first, next uint64, cs ...*ScopeChanges) uint64 {
	for _, c := range cs {
		if c.LogWritten.Any {
			to = min(to, c.LogWritten.Lo)
		}
		if c.LogDeleted.Any && c.LogDeleted.Hi >= first {
			to = min(to, max(first, c.LogDeleted.Lo))
		}
	}
	return min(max(to, first), next)
}

// logMatchesFrom reports whether both sides hold exactly the window's log
// rows and the same record at each offset from from on.
func logMatchesFrom(d, m *StoreScope, from uint64) bool {
	first, next := m.Tables.Window()
	if uint64(d.Tables.LogLen()) != next-first || uint64(m.Tables.LogLen()) != next-first {
		return false
	}
	for o := from; o < next; o++ {
		dr, dok := d.Tables.LogAt(o)
		mr, mok := m.Tables.LogAt(o)
		if !dok || !mok || !sameRecord(&dr, &mr) {
			return false
		}
	}
	return true
}

// keyedMatch reports whether the state tables and the consumer groups
// hold the same rows: as many on each side, and the same at every key
// either side changed (at every key of memory's, when all).
func keyedMatch(d, m *StoreScope, all bool) bool {
	if d.Tables.StateLen() != m.Tables.StateLen() || d.Tables.GroupsLen() != m.Tables.GroupsLen() {
		return false
	}
	if all {
		for _, s := range m.Tables.StateRows() {
			if !stateAtMatches(d, m, s.Key) {
				return false
			}
		}
		for _, g := range m.Tables.GroupRows() {
			if !groupAtMatches(d, m, g.Name) {
				return false
			}
		}
		return true
	}
	for _, c := range []*ScopeChanges{&d.Changes, &m.Changes} {
		for _, k := range c.StateKeys {
			if !stateAtMatches(d, m, k) {
				return false
			}
		}
		for _, name := range c.Groups {
			if !groupAtMatches(d, m, name) {
				return false
			}
		}
	}
	return true
}

// stateAtMatches reports whether both sides hold key alike (or neither).
func stateAtMatches(d, m *StoreScope, key string) bool {
	ds, dok := d.Tables.StateAt(key)
	ms, mok := m.Tables.StateAt(key)
	return dok == mok && ds.Version == ms.Version && bytes.Equal(ds.Value, ms.Value)
}

// groupAtMatches reports whether both sides hold consumer group name
// alike (or neither).
func groupAtMatches(d, m *StoreScope, name string) bool {
	dg, dok := d.Tables.GroupAt(name)
	mg, mok := m.Tables.GroupAt(name)
	return dok == mok && dg.CommittedOffset == mg.CommittedOffset && dg.DeliverNextOffset == mg.DeliverNextOffset && slices.Equal(dg.Leases, mg.Leases)
}

// outboxFrom is where the outbox's comparison starts: where the verified
// rows end (v.Next), cut at the lowest outbox row the store wrote below it
// or deleted at or above the outbox start (a trim deletes below it), and
// at the lowest record memory changed; from the start when the start
// moved back.
func outboxFrom(v *ScopeVerified, start, next uint64, d, m *ScopeChanges) uint64 {
	if start < v.OutboxFrom {
		return start
	}
	to := v.Next
	if d.OutboxWritten.Any {
		to = min(to, d.OutboxWritten.Lo)
	}
	if d.OutboxDeleted.Any && d.OutboxDeleted.Hi >= start {
		to = min(to, max(start, d.OutboxDeleted.Lo))
	}
	for _, c := range []*ScopeChanges{d, m} {
		if c.LogWritten.Any {
			to = min(to, c.LogWritten.Lo)
		}
	}
	return min(max(to, start), next)
}

// outboxMatchesFrom reports whether the store holds exactly the outbox
// rows start..next-1 and, from from on, each present and, in the window,
// holding its record's event kind and payload.
func outboxMatchesFrom(d, m *StoreScope, from uint64) bool {
	first, next := m.Tables.Window()
	start := min(m.OutboxStart, next)
	if uint64(d.Outbox.OutboxLen()) != next-start {
		return false
	}
	for o := from; o < next; o++ {
		row, ok := d.Outbox.OutboxAt(o)
		if !ok {
			return false
		}
		if o < first {
			continue // held below the window: memory keeps no record of it
		}
		rec, ok := m.Tables.LogAt(o)
		if !ok || row.Record.Event != rec.Event || !bytes.Equal(row.Record.Payload, rec.Payload) {
			return false
		}
	}
	return true
}
