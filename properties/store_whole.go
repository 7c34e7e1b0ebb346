package properties

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/felixsim/felixsim/felix"
)

// scopeRows is one side of a scope listed whole, each table ascending:
// the form the whole comparison reads.
type scopeRows struct {
	FirstOffset, NextOffset uint64
	Log                     []felix.Entry
	State                   []StoreSlot
	Groups                  []GroupView
	// OutboxStart is memory's; Outbox the store's rows.
	OutboxStart uint64
	Outbox      []felix.Entry
}

// rowsOf lists a side of a scope whole.
func rowsOf(s *StoreScope) scopeRows {
	r := scopeRows{Log: s.Tables.LogRows(), State: s.Tables.StateRows(), Groups: s.Tables.GroupRows(), OutboxStart: s.OutboxStart}
	r.FirstOffset, r.NextOffset = s.Tables.Window()
	if s.Outbox != nil {
		r.Outbox = s.Outbox.OutboxRows()
	}
	return r
}

// scopeMatchesWhole compares one scope's two sides listed whole, table by
// table in order, and names the first difference: how StoreMatchesMemory
// names what its comparison from the verified rows found. A difference
// that comparison found and this one does not see is still one.
func scopeMatchesWhole(d, m *StoreScope) error {
	dr, mr := rowsOf(d), rowsOf(m)
	if err := scopeRowsMatch(&dr, &mr); err != nil {
		return err
	}
	return fmt.Errorf("the store holds %d log, %d state, %d consumer group and %d outbox rows, memory %d, %d, %d and the outbox from %d, in the window [%d, %d): the counts differ",
		d.Tables.LogLen(), d.Tables.StateLen(), d.Tables.GroupsLen(), d.Outbox.OutboxLen(), m.Tables.LogLen(), m.Tables.StateLen(), m.Tables.GroupsLen(), m.OutboxStart, mr.FirstOffset, mr.NextOffset)
}

// scopeRowsMatch compares one scope's window, log, state, groups and
// outbox, listed whole.
func scopeRowsMatch(d, m *scopeRows) error {
	if d.FirstOffset != m.FirstOffset || d.NextOffset != m.NextOffset {
		return fmt.Errorf("stored window [%d, %d), memory's [%d, %d)", d.FirstOffset, d.NextOffset, m.FirstOffset, m.NextOffset)
	}
	if err := logRowsMatch(d.Log, m.Log); err != nil {
		return err
	}
	if err := stateRowsMatch(d.State, m.State); err != nil {
		return err
	}
	if err := groupRowsMatch(d.Groups, m.Groups); err != nil {
		return err
	}
	return outboxMatches(d.Outbox, m)
}

func logRowsMatch(d, m []felix.Entry) error {
	for k := 0; k < max(len(d), len(m)); k++ {
		switch {
		case k == len(d):
			return fmt.Errorf("memory's log holds offset %d, the store's log table does not", m[k].Offset)
		case k == len(m):
			return fmt.Errorf("the store's log table holds offset %d, memory's log does not", d[k].Offset)
		case d[k].Offset != m[k].Offset:
			return fmt.Errorf("the store's log table holds offset %d where memory's holds %d", d[k].Offset, m[k].Offset)
		case !sameRecord(&d[k].Record, &m[k].Record):
			return fmt.Errorf("the record at offset %d differs: stored %s, memory's %s", d[k].Offset, recordText(&d[k].Record), recordText(&m[k].Record))
		}
	}
	return nil
}

func stateRowsMatch(d, m []StoreSlot) error {
	for k := 0; k < max(len(d), len(m)); k++ {
		switch {
		case k == len(d):
			return fmt.Errorf("memory's state holds %q, the store's state table does not", m[k].Key)
		case k == len(m):
			return fmt.Errorf("the store's state table holds %q, memory's state does not", d[k].Key)
		case d[k].Key != m[k].Key:
			return fmt.Errorf("the store's state table holds %q where memory's holds %q", d[k].Key, m[k].Key)
		case d[k].Version != m[k].Version || !bytes.Equal(d[k].Value, m[k].Value):
			return fmt.Errorf("key %q: stored %q at version %d, memory's %q at version %d", d[k].Key, d[k].Value, d[k].Version, m[k].Value, m[k].Version)
		}
	}
	return nil
}

func groupRowsMatch(d, m []GroupView) error {
	for k := 0; k < max(len(d), len(m)); k++ {
		switch {
		case k == len(d):
			return fmt.Errorf("consumer group %q is in memory, not in the store", m[k].Name)
		case k == len(m):
			return fmt.Errorf("consumer group %q is in the store, not in memory", d[k].Name)
		case d[k].Name != m[k].Name || d[k].CommittedOffset != m[k].CommittedOffset || d[k].DeliverNextOffset != m[k].DeliverNextOffset || !slices.Equal(d[k].Leases, m[k].Leases):
			return fmt.Errorf("consumer group stored %s, memory's %s", groupText(&d[k]), groupText(&m[k]))
		}
	}
	return nil
}

// outboxMatches checks the stored outbox rows against memory: exactly the
// offsets m.OutboxStart..m.NextOffset-1, and each row in the retained
// window holding its record's event kind and payload.
func outboxMatches(rows []felix.Entry, m *scopeRows) error {
	start := min(m.OutboxStart, m.NextOffset)
	if want := m.NextOffset - start; uint64(len(rows)) != want || (want > 0 && (rows[0].Offset != start || rows[len(rows)-1].Offset != m.NextOffset-1)) {
		return fmt.Errorf("the store's outbox holds %s, memory's outbox [%d, %d)", outboxSpan(rows), start, m.NextOffset)
	}
	for k := range rows {
		r := &rows[k]
		if r.Offset != start+uint64(k) {
			return fmt.Errorf("the store's outbox skips offset %d", start+uint64(k))
		}
		if r.Offset < m.FirstOffset {
			continue // held below the window: memory keeps no record of it
		}
		i := r.Offset - m.FirstOffset
		if i >= uint64(len(m.Log)) {
			return fmt.Errorf("memory's log lacks offset %d of its window [%d, %d)", r.Offset, m.FirstOffset, m.NextOffset)
		}
		rec := &m.Log[i].Record
		if r.Record.Event != rec.Event || !bytes.Equal(r.Record.Payload, rec.Payload) {
			return fmt.Errorf("the outbox row at offset %d holds a %s event of %d bytes, its record a %s event of %d bytes", r.Offset, r.Record.Event, len(r.Record.Payload), rec.Event, len(rec.Payload))
		}
	}
	return nil
}

// outboxSpan renders stored outbox rows as their offsets' span.
func outboxSpan(rows []felix.Entry) string {
	switch len(rows) {
	case 0:
		return "no rows"
	case 1:
		return fmt.Sprintf("1 row at offset %d", rows[0].Offset)
	}
	return fmt.Sprintf("%d rows at offsets %d..%d", len(rows), rows[0].Offset, rows[len(rows)-1].Offset)
}

// sameRecord reports whether two records are the same: event, payload,
// operations and condition (empty and nil bytes alike).
func sameRecord(a, b *felix.Record) bool {
	if a.Event != b.Event || !bytes.Equal(a.Payload, b.Payload) || a.Conditional != b.Conditional || a.ExpectedOffset != b.ExpectedOffset || len(a.Ops) != len(b.Ops) {
		return false
	}
	for i := range a.Ops {
		if a.Ops[i].Kind != b.Ops[i].Kind || a.Ops[i].Key != b.Ops[i].Key || !bytes.Equal(a.Ops[i].Value, b.Ops[i].Value) {
			return false
		}
	}
	return true
}

// recordText renders a record for a message: event, payload size, ops.
func recordText(r *felix.Record) string {
	return fmt.Sprintf("%s event of %d bytes with %d operations", r.Event, len(r.Payload), len(r.Ops))
}

// groupText renders a consumer group's state.
func groupText(g *GroupView) string {
	return fmt.Sprintf("%q committed %d deliver-next %d leases %v", g.Name, g.CommittedOffset, g.DeliverNextOffset, g.Leases)
}
