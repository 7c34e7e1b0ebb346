package properties

import (
	"fmt"
	"strings"

	"github.com/felixsim/felixsim/felix"
)

// ViewOp is one state operation of a record: a put of Value, or a delete.
type ViewOp struct {
	Delete bool
	Key    string
	Value  string
}

// String renders the operation as put(key="value") or delete(key).
func (o ViewOp) String() string {
	if o.Delete {
		return "delete(" + o.Key + ")"
	}
	return fmt.Sprintf("put(%s=%q)", o.Key, o.Value)
}

// ViewEntry is one record at its offset in a replica's shard log: its
// event and its state operations, in order. It is the one form of a
// logged record every check reads (a client's record converts to it with
// ViewEntryOf).
type ViewEntry struct {
	Offset uint64
	// HasEvent is false only for a record that carries no event, which a
	// correct broker never writes (the SplitRecords defect does).
	HasEvent bool
	// Enqueue marks an enqueue event; false is a publish.
	Enqueue bool
	// Event identifies the record's event (its payload or commit id).
	Event string
	// Conditional marks a commit_if/publish_if record, written only at
	// ExpectedOffset.
	Conditional    bool
	ExpectedOffset uint64
	Ops            []ViewOp
}

// ViewSlot is one key of a state view: its value and version (the offset
// of the record that last wrote it).
type ViewSlot struct {
	Key     string
	Value   string
	Version uint64
}

// ReplicaView is one broker's replica of one scope (stream shard): its
// retained log, contiguous and ascending by offset, and its state view
// sorted by key. It is the one form of "a replica's shard log" every
// check reads: the replica checks one view at a time, the cluster checks
// grouped by scope (ClusterScope), the history checks grouped by broker
// (ReplicaLog).
type ReplicaView struct {
	Name string
	// Scope names the shard; the TLA+ mirror, which models one shard,
	// leaves it zero.
	Scope felix.Scope
	// FirstOffset and NextOffset bound the retained window: Log holds
	// exactly the offsets FirstOffset..NextOffset-1 (retention may have
	// dropped the ones below FirstOffset).
	FirstOffset uint64
	NextOffset  uint64
	Log         []ViewEntry
	State       []ViewSlot
	// Drops are the retention steps that shaped the window, as the run
	// observed them on any replica, ascending by AtNext (set on the
	// reference log; nil: none observed, and the checks then cannot say
	// when offsets below FirstOffset were dropped).
	Drops []RetentionDrop
}

// RetentionDrop is one retention step of a scope: when the log's next
// offset was AtNext, every record below Below was dropped, and with it
// every key whose last write it was. WithWrite marks retention by count,
// part of the write that made the log AtNext long (no reader sees the
// write without the drop); otherwise an age retain command took effect on
// its own between the records at AtNext-1 and AtNext, by AppliedNs (the
// earliest time a replica applied it; it was committed before then).
type RetentionDrop struct {
	AtNext    uint64
	Below     uint64
	WithWrite bool
	AppliedNs int64
}

// At returns the log entry at offset, or false if the retained window
// does not hold it.
func (r *ReplicaView) At(offset uint64) (*ViewEntry, bool) {
	if offset < r.FirstOffset || offset >= r.NextOffset {
		return nil, false
	}
	i := offset - r.FirstOffset
	if i >= uint64(len(r.Log)) || r.Log[i].Offset != offset {
		return nil, false
	}
	return &r.Log[i], true
}

// ReaderView is what one reader saw at one broker at one moment: the events
// of the applied log (a subscriber's or consumer group's sequence) and the
// state view state_get reads, sorted by key.
type ReaderView struct {
	Broker string
	Events []ViewEntry
	State  []ViewSlot
}

// IntentFunc returns the state operations the commit whose event is event
// carried, and false if no commit wrote that event.
type IntentFunc func(event string) (ops []ViewOp, ok bool)

// entryAt returns the log entry at offset, or false if the log does not
// hold it. It assumes a contiguous log (checkContiguous).
func entryAt(log []ViewEntry, offset uint64) (*ViewEntry, bool) {
	if len(log) == 0 || offset < log[0].Offset {
		return nil, false
	}
	i := offset - log[0].Offset
	if i >= uint64(len(log)) {
		return nil, false
	}
	return &log[i], true
}

// checkContiguous refuses a log whose offsets are not consecutive.
func checkContiguous(name string, log []ViewEntry) error {
	for i := 1; i < len(log); i++ {
		if log[i].Offset != log[i-1].Offset+1 {
			return fmt.Errorf("replica %s: log refused: offset %d follows offset %d (not contiguous)",
				name, log[i].Offset, log[i-1].Offset)
		}
	}
	return nil
}

// checkSorted refuses a state view whose keys are not strictly ascending.
func checkSorted(name string, state []ViewSlot) error {
	for i := 1; i < len(state); i++ {
		if state[i].Key <= state[i-1].Key {
			return fmt.Errorf("replica %s: state view refused: key %q after %q (not strictly ascending)",
				name, state[i].Key, state[i-1].Key)
		}
	}
	return nil
}

// applyOps applies ops to a sorted state view, writing version to puts,
// and returns the updated view (it reuses state's array).
func applyOps(state []ViewSlot, ops []ViewOp, version uint64) []ViewSlot {
	for _, op := range ops {
		i := 0
		for i < len(state) && state[i].Key < op.Key {
			i++
		}
		found := i < len(state) && state[i].Key == op.Key
		switch {
		case op.Delete && found:
			state = append(state[:i], state[i+1:]...)
		case op.Delete:
		case found:
			state[i] = ViewSlot{Key: op.Key, Value: op.Value, Version: version}
		default:
			state = append(state, ViewSlot{})
			copy(state[i+1:], state[i:])
			state[i] = ViewSlot{Key: op.Key, Value: op.Value, Version: version}
		}
	}
	return state
}

// formatState renders a state view as {k=v@ver, ...} for error messages.
func formatState(state []ViewSlot) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, s := range state {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%s@%d", s.Key, s.Value, s.Version)
	}
	b.WriteByte('}')
	return b.String()
}
