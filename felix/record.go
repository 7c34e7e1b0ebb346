package felix

import (
	"errors"
	"fmt"
)

// Size limits a record must respect; the wire decoder and Validate enforce them.
const (
	// KeyLenMax is the longest state key, in bytes.
	KeyLenMax = 1024
	// ValueLenMax is the longest state value, in bytes.
	ValueLenMax = 1 << 20
	// PayloadLenMax is the longest event payload, in bytes.
	PayloadLenMax = 1 << 20
	// OpsPerRecordMax is the most state operations one record may carry.
	OpsPerRecordMax = 1024
	// NameLenMax is the longest tenant, namespace or stream name, in bytes.
	NameLenMax = 255
)

// EventKind says how a record's single event is meant to be read.
type EventKind uint8

// Event kinds. Publish and enqueue write the same kind of record; the kind
// records what the writer meant (subscribers versus consumer groups).
const (
	EventInvalid EventKind = iota
	EventPublish
	EventEnqueue
)

// String names the event kind.
func (k EventKind) String() string {
	switch k {
	case EventPublish:
		return "publish"
	case EventEnqueue:
		return "enqueue"
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// OpKind is the kind of one keyed-state operation.
type OpKind uint8

// State operation kinds.
const (
	OpInvalid OpKind = iota
	OpPut
	OpDelete
)

// String names the operation kind.
func (k OpKind) String() string {
	switch k {
	case OpPut:
		return "put"
	case OpDelete:
		return "delete"
	}
	return fmt.Sprintf("OpKind(%d)", uint8(k))
}

// StateOp is one put(key, value) or delete(key) on a stream's keyed state.
type StateOp struct {
	Kind OpKind
	Key  string
	// Value is the new value for OpPut and must be empty for OpDelete.
	Value []byte
}

// Record is the unit a shard's log holds: exactly one event plus zero or more
// state operations, applied in order, all at one offset.
type Record struct {
	Event   EventKind
	Payload []byte
	Ops     []StateOp
	// Conditional makes the record a publish_if/commit_if: it is written only
	// if ExpectedOffset equals the shard's next offset at apply time.
	Conditional    bool
	ExpectedOffset uint64
}

// IsCommit reports whether the record carries state operations, which makes
// it a commit record subject to the atomic_commit feature gate.
func (r *Record) IsCommit() bool { return len(r.Ops) > 0 }

// ErrInvalidRecord marks every record refused for its shape.
var ErrInvalidRecord = errors.New("invalid record")

// Validate checks the record's shape: one known event, known operations,
// keys present, sizes within limits.
func (r *Record) Validate() error {
	if r.Event != EventPublish && r.Event != EventEnqueue {
		return fmt.Errorf("%w: event kind %d is neither publish nor enqueue", ErrInvalidRecord, r.Event)
	}
	if len(r.Payload) > PayloadLenMax {
		return fmt.Errorf("%w: payload of %d bytes exceeds %d", ErrInvalidRecord, len(r.Payload), PayloadLenMax)
	}
	if len(r.Ops) > OpsPerRecordMax {
		return fmt.Errorf("%w: %d state operations exceed %d", ErrInvalidRecord, len(r.Ops), OpsPerRecordMax)
	}
	for i := range r.Ops {
		if err := r.Ops[i].validate(); err != nil {
			return fmt.Errorf("%w: operation %d: %v", ErrInvalidRecord, i, err)
		}
	}
	return nil
}

func (op *StateOp) validate() error {
	if op.Key == "" {
		return errors.New("empty key")
	}
	if len(op.Key) > KeyLenMax {
		return fmt.Errorf("key of %d bytes exceeds %d", len(op.Key), KeyLenMax)
	}
	switch op.Kind {
	case OpPut:
		if len(op.Value) > ValueLenMax {
			return fmt.Errorf("value of %d bytes exceeds %d", len(op.Value), ValueLenMax)
		}
	case OpDelete:
		if len(op.Value) != 0 {
			return fmt.Errorf("delete of %q carries a %d-byte value", op.Key, len(op.Value))
		}
	default:
		return fmt.Errorf("unknown operation kind %d", op.Kind)
	}
	return nil
}

// Entry is a record as the log holds it: at its offset.
type Entry struct {
	Offset uint64
	Record Record
}
