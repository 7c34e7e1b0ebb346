package properties

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/felixsim/felixsim/felix"
)

// StoreImage is one broker's replica as plain data, read either from
// what its store made durable (decoded from the bytes a crash would
// leave, as a restart reads them) or from what the broker holds in
// memory: the two sides StoreMatchesMemory compares. An image may cover
// some of the broker's raft groups only (those a durable round touched).
type StoreImage struct {
	Broker string
	// Fleet is the metadata group's state (streams, broker versions,
	// finalized features) in a canonical text; "" when the image leaves
	// the metadata group out.
	Fleet string
	// Groups ascend by ID.
	Groups []StoreGroup
}

// StoreGroup is one raft group of a StoreImage.
type StoreGroup struct {
	ID        uint64
	HardState RaftHardState
	// Applied is the group's applied index; the metadata group's is left
	// 0 on both sides (its store keeps none: a restart folds its
	// committed entries again).
	Applied uint64
	// Features and Incarnation name the fleet features and the stream
	// incarnation the group's log has applied; Voters and Learners are
	// its membership there (ascending).
	Features    string
	Incarnation string
	Voters      []uint64
	Learners    []uint64
	// FirstIndex and LastIndex bound the raft log the store holds
	// (memory: what raft reads as its stable log; LastIndex <
	// FirstIndex when it is empty); Tail are its newest entries, up to
	// LastIndex (both sides hold as many).
	FirstIndex, LastIndex uint64
	Tail                  []RaftEntry
	// Scopes ascend by scope (felix.Scope.Less).
	Scopes []StoreScope
}

// StoreScope is one scope's tables.
type StoreScope struct {
	Scope felix.Scope
	// FirstOffset and NextOffset bound the retained window; Log holds its
	// records, ascending.
	FirstOffset, NextOffset uint64
	Log                     []felix.Entry
	// State ascends by key.
	State []StoreSlot
	// OutboxStart (memory side) is the first offset the relay has not
	// confirmed: the outbox holds OutboxStart..NextOffset-1.
	OutboxStart uint64
	// Outbox (durable side) is every outbox row, ascending by offset, as
	// an entry whose record carries the event alone.
	Outbox []felix.Entry
	// Groups are the consumer groups, ascending by name.
	Groups []GroupView
}

// StoreSlot is one state-table row: a key's value and version.
type StoreSlot struct {
	Key     string
	Value   []byte
	Version uint64
}

// StoreMatchesMemory checks that a broker's durable store holds what its
// memory holds, on the raft groups memory covers: per group, the raft
// term and vote (the stored commit index may trail memory's, never lead
// it), the stored raft log (its span and its newest entries), the
// applied index, fleet features, stream
// incarnation and membership; per scope, the retained window and every
// log record in it, the state table, the consumer groups (positions and
// leases) and the outbox: exactly the offsets OutboxStart..NextOffset-1,
// each row below the window present and each row in it holding its
// record's event kind and payload (the outbox's statement, not the
// writer's). It names the first difference. Memory's Fleet is compared
// when set.
func StoreMatchesMemory(durable, memory *StoreImage) error {
	for i := range memory.Groups {
		m := &memory.Groups[i]
		j, found := slices.BinarySearchFunc(durable.Groups, m.ID, func(g StoreGroup, id uint64) int { return cmpU64(g.ID, id) })
		if !found {
			return InvariantStoreMatchesMemory.Errorf("%s: group %d is in memory but not in the store", memory.Broker, m.ID)
		}
		if err := groupMatches(&durable.Groups[j], m); err != nil {
			return InvariantStoreMatchesMemory.Errorf("%s: group %d: %v", memory.Broker, m.ID, err)
		}
	}
	if memory.Fleet != "" && durable.Fleet != memory.Fleet {
		return InvariantStoreMatchesMemory.Errorf("%s: the store's metadata is %s, memory's %s", memory.Broker, durable.Fleet, memory.Fleet)
	}
	return nil
}

// groupMatches compares one group's raft state, then its scopes.
func groupMatches(d, m *StoreGroup) error {
	switch {
	case d.HardState.Term != m.HardState.Term || d.HardState.Vote != m.HardState.Vote || d.HardState.Commit > m.HardState.Commit:
		return fmt.Errorf("stored hard state %s, memory's %s", d.HardState, m.HardState)
	case d.Applied != m.Applied:
		return fmt.Errorf("stored applied index %d, memory's %d", d.Applied, m.Applied)
	case d.Features != m.Features:
		return fmt.Errorf("stored features %q, memory's %q", d.Features, m.Features)
	case d.Incarnation != m.Incarnation:
		return fmt.Errorf("stored incarnation %s, memory's %s", d.Incarnation, m.Incarnation)
	case !slices.Equal(d.Voters, m.Voters) || !slices.Equal(d.Learners, m.Learners):
		return fmt.Errorf("stored membership voters %v learners %v, memory's voters %v learners %v", d.Voters, d.Learners, m.Voters, m.Learners)
	}
	if err := raftLogMatches(d, m); err != nil {
		return err
	}
	return scopesMatch(d.Scopes, m.Scopes)
}

// raftLogMatches compares the stored raft log with memory's: its span
// and its newest entries.
func raftLogMatches(d, m *StoreGroup) error {
	if d.FirstIndex != m.FirstIndex || d.LastIndex != m.LastIndex || len(d.Tail) != len(m.Tail) {
		return fmt.Errorf("stored raft log holds %s, memory's %s", indexSpan(d.FirstIndex, d.LastIndex), indexSpan(m.FirstIndex, m.LastIndex))
	}
	from := d.LastIndex + 1 - uint64(len(d.Tail))
	for k := range d.Tail {
		if d.Tail[k].Term != m.Tail[k].Term || !bytes.Equal(d.Tail[k].Data, m.Tail[k].Data) {
			return fmt.Errorf("stored raft entry %d (term %d, %d bytes) differs from memory's (term %d, %d bytes)",
				from+uint64(k), d.Tail[k].Term, len(d.Tail[k].Data), m.Tail[k].Term, len(m.Tail[k].Data))
		}
	}
	return nil
}

// indexSpan renders the raft log [first, last], or "nothing" when empty.
func indexSpan(first, last uint64) string {
	if last < first {
		return "nothing"
	}
	return fmt.Sprintf("[%d, %d]", first, last)
}

// scopesMatch compares two ascending scope lists, scope by scope.
func scopesMatch(ds, ms []StoreScope) error {
	i, j := 0, 0
	for i < len(ds) || j < len(ms) {
		switch {
		case j == len(ms) || (i < len(ds) && ds[i].Scope.Less(ms[j].Scope)):
			return fmt.Errorf("scope %s is in the store (%d log rows, %d outbox rows) but not in memory", ds[i].Scope, len(ds[i].Log), len(ds[i].Outbox))
		case i == len(ds) || ms[j].Scope.Less(ds[i].Scope):
			return fmt.Errorf("scope %s is in memory but not in the store", ms[j].Scope)
		}
		if err := scopeMatches(&ds[i], &ms[j]); err != nil {
			return fmt.Errorf("scope %s: %v", ms[j].Scope, err)
		}
		i, j = i+1, j+1
	}
	return nil
}

// scopeMatches compares one scope's window, log, state, groups and outbox.
func scopeMatches(d, m *StoreScope) error {
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
func outboxMatches(rows []felix.Entry, m *StoreScope) error {
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

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
