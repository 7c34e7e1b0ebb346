package logstore

import (
	"fmt"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
)

// WriteKind says whether a state or outbox row is written or removed.
type WriteKind uint8

// Row write kinds; the zero value is invalid.
const (
	WriteInvalid WriteKind = iota
	WritePut
	WriteDelete
)

// String names the write kind.
func (k WriteKind) String() string {
	switch k {
	case WritePut:
		return "put"
	case WriteDelete:
		return "delete"
	}
	return fmt.Sprintf("WriteKind(%d)", uint8(k))
}

// IntentDataLenMax is the longest opaque delivery-intent payload, in bytes:
// an event's payload fits (the node keeps the event a relay delivers).
const IntentDataLenMax = felix.PayloadLenMax

// LogRow is one row of the log table: the record at (Scope, Offset), the
// durable fact.
type LogRow struct {
	Scope  felix.Scope
	Offset uint64
	Record felix.Record
}

// StateValue is a state table value and its version (the offset of the
// record that wrote it).
type StateValue struct {
	Value   []byte
	Version uint64
}

// StateRow is one write to the state table at (Scope, Key).
type StateRow struct {
	Kind  WriteKind
	Scope felix.Scope
	Key   string
	// Value is the new value for WritePut; empty for WriteDelete.
	Value []byte
	// Version is the offset of the record that wrote Value (WritePut only).
	Version uint64
}

// Position says where a scope resumes: the raft index applied last, the
// next offset the shard's log will assign and the offset of its oldest
// retained record (the retained window is [FirstOffset, NextOffset)).
//
// A position row that raises FirstOffset is a retention step: the store
// drops the scope's log rows below it and, with each dropped record, every
// state row whose version is that record's offset (the key's last write),
// so the state table stays the fold of the retained log. It keeps their
// outbox rows: an event leaves the outbox only when an outbox row delete
// (the relay's confirmed trim) removes it, never by retention, so a
// record dropped before the relay delivered it is still delivered.
// FirstOffset never moves back and never passes NextOffset.
type Position struct {
	AppliedIndex uint64
	NextOffset   uint64
	FirstOffset  uint64
}

// PositionRow is one write to the position table at Scope.
type PositionRow struct {
	Scope    felix.Scope
	Position Position
}

// Intent is a delivery intent: the event at an offset still has to reach
// subscribers (EventPublish) or consumer groups (EventEnqueue).
type Intent struct {
	Event felix.EventKind
	// Data is opaque to logstore (the node's delivery bookkeeping), at most
	// IntentDataLenMax bytes.
	Data []byte
}

// OutboxRow is one write to the outbox table at (Scope, Offset).
type OutboxRow struct {
	Kind   WriteKind
	Scope  felix.Scope
	Offset uint64
	// Intent is the delivery intent for WritePut; zero for WriteDelete.
	Intent Intent
}

// Compaction makes a local snapshot of a raft group durable and drops the
// group's entries up to and including the snapshot's index, which must be an
// entry the store holds, with the snapshot's term. A snapshot without a
// ConfState keeps the stored one.
type Compaction struct {
	Snapshot *raftpb.Snapshot
}

// GroupWrite is the raft persistence of one group in a batch, applied in the
// order of its fields: a received snapshot (replacing the whole log), new
// entries (replacing any conflicting suffix), a hard state, a local
// compaction, then the applied index.
type GroupWrite struct {
	Group     uint64
	Snapshot  *raftpb.Snapshot
	Entries   []*raftpb.Entry
	HardState *raftpb.HardState
	Compact   *Compaction
	// AppliedIndex is the raft index the caller applied last in this group,
	// made durable with the rows that applying produced; 0 keeps the stored
	// one. It never decreases and never passes the group's last index.
	AppliedIndex uint64
}

// ConsumerGroupRow is one write to the consumer-group table at (Scope,
// Group.Name): the group's whole state (position and leases) replaces the
// stored one. Consumer groups are never removed.
type ConsumerGroupRow struct {
	Scope felix.Scope
	Group statemachine.GroupState
}

// Batch is everything one Commit makes durable at once: raft persistence for
// any number of groups, the applied rows of the four Felix tables and the
// consumer groups' state.
type Batch struct {
	Groups         []GroupWrite
	Log            []LogRow
	State          []StateRow
	Positions      []PositionRow
	Outbox         []OutboxRow
	ConsumerGroups []ConsumerGroupRow
}

// Reset empties the batch for reuse, keeping its arrays and dropping its
// references to the rows it held.
func (b *Batch) Reset() {
	clear(b.Groups)
	clear(b.Log)
	clear(b.State)
	clear(b.Positions)
	clear(b.Outbox)
	clear(b.ConsumerGroups)
	*b = Batch{Groups: b.Groups[:0], Log: b.Log[:0], State: b.State[:0], Positions: b.Positions[:0], Outbox: b.Outbox[:0],
		ConsumerGroups: b.ConsumerGroups[:0]}
}

// Empty reports whether the batch writes nothing.
func (b *Batch) Empty() bool {
	return len(b.Groups) == 0 && len(b.Log) == 0 && len(b.State) == 0 &&
		len(b.Positions) == 0 && len(b.Outbox) == 0 && len(b.ConsumerGroups) == 0
}

// AddRecord appends the rows that applying rec at (scope, offset) writes:
// its log row, one state row per operation with version offset, and, when
// intent is not nil, its outbox row. The position row is the caller's (one
// per scope per batch is enough).
func (b *Batch) AddRecord(scope felix.Scope, offset uint64, rec felix.Record, intent *Intent) {
	b.Log = append(b.Log, LogRow{Scope: scope, Offset: offset, Record: rec})
	for _, op := range rec.Ops {
		row := StateRow{Scope: scope, Key: op.Key}
		switch op.Kind {
		case felix.OpPut:
			row.Kind, row.Value, row.Version = WritePut, op.Value, offset
		case felix.OpDelete:
			row.Kind = WriteDelete
		}
		b.State = append(b.State, row)
	}
	if intent != nil {
		b.Outbox = append(b.Outbox, OutboxRow{Kind: WritePut, Scope: scope, Offset: offset, Intent: *intent})
	}
}
