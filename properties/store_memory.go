package properties

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/felixsim/felixsim/felix"
)

// StoreImage is one broker's replica, read either from what its store
// made durable (decoded from the bytes a crash would leave, as a restart
// reads them) or from what the broker holds in memory: the two sides
// StoreMatchesMemory compares. An image may cover some of the broker's
// raft groups only (those a durable round touched). Its tables are read
// in place (ScopeTables), never copied whole.
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
	// FirstIndex when it is empty); Raft reads its entries.
	FirstIndex, LastIndex uint64
	Raft                  RaftLogSource
	// Scopes ascend by scope (felix.Scope.Less).
	Scopes []StoreScope
}

// RaftTailEntries is how many of a group's newest raft entries
// StoreMatchesMemory compares: the ones the latest rounds wrote. Older
// entries are committed and never rewritten; a store that keeps a stale
// suffix or loses an append differs in the log's span or its tail.
const RaftTailEntries = 64

// RaftLogSource reads one side's stored raft log of one group in place.
type RaftLogSource interface {
	// RaftEntry returns the term and data of the entry at index, or false
	// if the log does not hold it.
	RaftEntry(index uint64) (term uint64, data []byte, ok bool)
}

// StoreScope is one scope of a StoreGroup: its tables, read in place, and
// what changed in them since its last comparison (Verified).
type StoreScope struct {
	Scope  felix.Scope
	Tables ScopeTables
	// OutboxStart (memory side) is the first offset the relay has not
	// confirmed: the store's outbox must hold OutboxStart..NextOffset-1.
	OutboxStart uint64
	// Outbox (durable side) reads the store's outbox rows.
	Outbox OutboxTable
	// Changes is what this side changed in the scope's rows since
	// Verified was taken.
	Changes ScopeChanges
	// Verified (memory side) is what the scope's last comparison
	// verified (the zero value: nothing); StoreMatchesMemory reads it and
	// leaves there what this comparison verified. nil: nothing, and
	// nothing kept.
	Verified *ScopeVerified
}

// ScopeTables reads one side's tables of one scope in place: the store's
// through its index, memory's shard through its ring.
type ScopeTables interface {
	// Window is the retained window [first, next): the store's position
	// row (zero without one), the shard's log.
	Window() (first, next uint64)
	// LogLen is how many log rows the side holds (memory: its window);
	// LogAt reads the record at offset (its byte slices are the side's:
	// valid until it changes).
	LogLen() int
	LogAt(offset uint64) (felix.Record, bool)
	StateLen() int
	StateAt(key string) (StoreSlot, bool)
	GroupsLen() int
	GroupAt(name string) (GroupView, bool)
	// LogRows, StateRows and GroupRows list a table whole, ascending (by
	// offset, key and name): for a first comparison of the keyed tables
	// and to name a difference.
	LogRows() []felix.Entry
	StateRows() []StoreSlot
	GroupRows() []GroupView
}

// OutboxTable reads the store's outbox rows of one scope in place: each
// an entry whose record carries the event alone.
type OutboxTable interface {
	OutboxLen() int
	OutboxAt(offset uint64) (felix.Entry, bool)
	// OutboxRows lists every row, ascending by offset (to name a
	// difference).
	OutboxRows() []felix.Entry
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
// it), the stored raft log (its span and its newest RaftTailEntries
// entries), the applied index, fleet features, stream incarnation and
// membership; per scope, the retained window and every log record in it,
// the state table, the consumer groups (positions and leases) and the
// outbox: exactly the offsets OutboxStart..NextOffset-1, each row below
// the window present and each row in it holding its record's event kind
// and payload (the outbox's statement, not the writer's). It names the
// first difference, as a comparison of the two sides whole names it.
// Memory's Fleet is compared when set.
//
// Each scope is compared from what its last comparison verified
// (StoreScope.Verified) and what changed since on either side: the rows
// below a verified log and outbox prefix and the keys nothing changed are
// not read again (scopeMatches). A scope whose comparison fails keeps
// nothing verified.
func StoreMatchesMemory(durable, memory *StoreImage) error {
	for i := range memory.Groups {
		m := &memory.Groups[i]
		j, found := slices.BinarySearchFunc(durable.Groups, m.ID, func(g StoreGroup, id uint64) int { return cmpU64(g.ID, id) })
		err := InvariantStoreMatchesMemory.Errorf("%s: group %d is in memory but not in the store", memory.Broker, m.ID)
		if found {
			err = groupMatches(&durable.Groups[j], m)
			if err != nil {
				err = InvariantStoreMatchesMemory.Errorf("%s: group %d: %v", memory.Broker, m.ID, err)
			}
		}
		if err != nil {
			for k := i; k < len(memory.Groups); k++ {
				forgetVerified(memory.Groups[k].Scopes)
			}
			return err
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
// and its newest RaftTailEntries entries.
func raftLogMatches(d, m *StoreGroup) error {
	if d.FirstIndex != m.FirstIndex || d.LastIndex != m.LastIndex {
		return fmt.Errorf("stored raft log holds %s, memory's %s", indexSpan(d.FirstIndex, d.LastIndex), indexSpan(m.FirstIndex, m.LastIndex))
	}
	if d.LastIndex < d.FirstIndex {
		return nil
	}
	for i := d.LastIndex + 1 - min(d.LastIndex+1-d.FirstIndex, RaftTailEntries); i <= d.LastIndex; i++ {
		dt, dd, dok := d.Raft.RaftEntry(i)
		mt, md, mok := m.Raft.RaftEntry(i)
		switch {
		case !dok || !mok:
			return fmt.Errorf("raft entry %d of the span [%d, %d] cannot be read back (store %v, memory %v)", i, d.FirstIndex, d.LastIndex, dok, mok)
		case dt != mt || !bytes.Equal(dd, md):
			return fmt.Errorf("stored raft entry %d (term %d, %d bytes) differs from memory's (term %d, %d bytes)", i, dt, len(dd), mt, len(md))
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
			return fmt.Errorf("scope %s is in the store (%d log rows, %d outbox rows) but not in memory", ds[i].Scope, ds[i].Tables.LogLen(), ds[i].Outbox.OutboxLen())
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

// forgetVerified leaves nothing verified in scopes (memory's): a
// comparison cut short by a difference may not have compared them, and
// the changes it was handed are gone.
func forgetVerified(scopes []StoreScope) {
	for i := range scopes {
		if v := scopes[i].Verified; v != nil {
			*v = ScopeVerified{}
		}
	}
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
