package logstore

import (
	"fmt"
	"reflect"
	"slices"

	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/felixsim/felixsim/felix"
)

// ownBatch returns the batch Commit installs for b: exactly what decoding
// b's encoding yields (the same rows, the same raft messages, empty byte
// slices as nil), built without encoding or decoding.
//
// Every byte slice the tables keep (record payloads, put values, intent
// data) is copied into one buffer, and every consumer group's leases into
// their own slice, so the caller may reuse its own (rows are copied by
// value when installed); a
// received snapshot is cloned, as installing it fills its nil fields. Raft
// entries, hard states and compaction snapshots are shared with the caller,
// as raft's own MemoryStorage shares them: the store never changes them and
// the caller must not either.
//
// The result's row slices are reuse's, when large enough, and every row in
// them is written whole: install copies rows by value and keeps none of
// the slices, so Commit hands the same slices to every batch
// (ownRows.keep). The arena, operations, leases and snapshots are fresh
// each time, as the tables keep them.
//
// sameBatch shows, for any valid batch, that the result equals the decoded
// encoding (TestOwnBatchEqualsDecode, with one reuse for every batch, and
// every Commit under the invariants build tag).
func ownBatch(b *Batch, reuse *Batch) Batch {
	var n Batch
	byteCount, opCount := 0, 0
	for i := range b.Log {
		r := &b.Log[i].Record
		byteCount += len(r.Payload)
		opCount += len(r.Ops)
		for j := range r.Ops {
			byteCount += len(r.Ops[j].Value)
		}
	}
	for i := range b.State {
		byteCount += len(b.State[i].Value)
	}
	for i := range b.Outbox {
		byteCount += len(b.Outbox[i].Intent.Data)
	}
	a := arena{buf: make([]byte, 0, byteCount)}
	ops := make([]felix.StateOp, 0, opCount)

	if len(b.Groups) > 0 {
		n.Groups = reuseRows(reuse.Groups, len(b.Groups))
		for i := range b.Groups {
			w := &b.Groups[i]
			g := &n.Groups[i]
			*g = GroupWrite{Group: w.Group, HardState: w.HardState, Compact: w.Compact, AppliedIndex: w.AppliedIndex}
			if w.Snapshot != nil {
				g.Snapshot = proto.Clone(w.Snapshot).(*raftpb.Snapshot)
			}
			if len(w.Entries) > 0 {
				g.Entries = w.Entries
			}
		}
	}
	if len(b.Log) > 0 {
		n.Log = reuseRows(reuse.Log, len(b.Log))
		for i := range b.Log {
			src := &b.Log[i]
			dst := &n.Log[i]
			*dst = LogRow{Scope: src.Scope, Offset: src.Offset, Record: src.Record}
			dst.Record.Payload = a.copy(src.Record.Payload)
			dst.Record.Ops = nil
			if len(src.Record.Ops) > 0 {
				start := len(ops)
				for _, op := range src.Record.Ops {
					op.Value = a.copy(op.Value)
					ops = append(ops, op)
				}
				dst.Record.Ops = ops[start:len(ops):len(ops)]
			}
		}
	}
	if len(b.State) > 0 {
		n.State = reuseRows(reuse.State, len(b.State))
		for i := range b.State {
			n.State[i] = b.State[i]
			n.State[i].Value = a.copy(b.State[i].Value)
		}
	}
	if len(b.Positions) > 0 {
		// Position rows hold no references and install copies them by
		// value: the slice itself may be the caller's.
		n.Positions = b.Positions
	}
	if len(b.Outbox) > 0 {
		n.Outbox = reuseRows(reuse.Outbox, len(b.Outbox))
		for i := range b.Outbox {
			n.Outbox[i] = b.Outbox[i]
			n.Outbox[i].Intent.Data = a.copy(b.Outbox[i].Intent.Data)
		}
	}
	if len(b.ConsumerGroups) > 0 {
		n.ConsumerGroups = reuseRows(reuse.ConsumerGroups, len(b.ConsumerGroups))
		for i := range b.ConsumerGroups {
			n.ConsumerGroups[i] = b.ConsumerGroups[i]
			n.ConsumerGroups[i].Group.Leases = nil
			if ls := b.ConsumerGroups[i].Group.Leases; len(ls) > 0 {
				n.ConsumerGroups[i].Group.Leases = slices.Clone(ls)
			}
		}
	}
	if len(a.buf) != byteCount || len(ops) != opCount {
		panic(fmt.Sprintf("logstore: owning a batch copied %d bytes and %d operations, counted %d and %d",
			len(a.buf), len(ops), byteCount, opCount))
	}
	return n
}

// reuseRows returns n rows in s's array if it has room, else in a new one
// (never nil, as make's is not); the rows' old values are still there, for
// the caller to overwrite.
func reuseRows[R any](s []R, n int) []R {
	if s == nil || cap(s) < n {
		return make([]R, n)
	}
	return s[:n]
}

// ownRowsKeepMax is the most rows of one table whose slice Commit keeps for
// the next batch; a larger batch's slice is left to the garbage collector.
const ownRowsKeepMax = 4096

// keepOwnRows keeps the row slices of an installed batch for the next
// ownBatch, cleared so they hold nothing the tables dropped.
//
// Invariant: every slice in s.ownRows has a capacity of at most
// ownRowsKeepMax, and its whole array holds zero rows.
func (s *Store) keepOwnRows(b *Batch) {
	s.ownRows.Groups = keepRows(s.ownRows.Groups, b.Groups)
	s.ownRows.Log = keepRows(s.ownRows.Log, b.Log)
	s.ownRows.State = keepRows(s.ownRows.State, b.State)
	s.ownRows.Outbox = keepRows(s.ownRows.Outbox, b.Outbox)
	s.ownRows.ConsumerGroups = keepRows(s.ownRows.ConsumerGroups, b.ConsumerGroups)
}

// keepRows returns the rows ownBatch used (kept's own array, or a larger
// one it made) cleared, to be kept for the next batch, unless there were
// none or their array is above ownRowsKeepMax: then kept, still clear.
func keepRows[R any](kept, used []R) []R {
	if len(used) == 0 || cap(used) > ownRowsKeepMax {
		return kept
	}
	clear(used)
	return used[:0]
}

// arena hands out copies of byte slices from one buffer sized in advance.
//
// Invariant: len(buf) never exceeds the capacity it was made with, so no
// copy moves the buffer and every copy handed out stays valid.
type arena struct{ buf []byte }

// copy returns p's bytes in the arena, capped so an append cannot reach the
// next copy; nil if p is empty, as decoding yields.
func (a *arena) copy(p []byte) []byte {
	if len(p) == 0 {
		return nil
	}
	if len(p) > cap(a.buf)-len(a.buf) {
		panic(fmt.Sprintf("logstore: arena of %d bytes holds %d, cannot take %d more", cap(a.buf), len(a.buf), len(p)))
	}
	start := len(a.buf)
	a.buf = append(a.buf, p...)
	return a.buf[start:len(a.buf):len(a.buf)]
}

// sameBatch returns "" if a and b hold the same writes (raft messages
// compared with proto.Equal, rows field by field, nil and empty slices
// distinguished), else the first difference with both values.
func sameBatch(a, b *Batch) string {
	if len(a.Groups) != len(b.Groups) {
		return fmt.Sprintf("%d group writes against %d", len(a.Groups), len(b.Groups))
	}
	for i := range a.Groups {
		if d := sameGroupWrite(&a.Groups[i], &b.Groups[i]); d != "" {
			return fmt.Sprintf("group write %d: %s", i, d)
		}
	}
	if d := sameRows("log", a.Log, b.Log); d != "" {
		return d
	}
	if d := sameRows("state", a.State, b.State); d != "" {
		return d
	}
	if d := sameRows("position", a.Positions, b.Positions); d != "" {
		return d
	}
	if d := sameRows("outbox", a.Outbox, b.Outbox); d != "" {
		return d
	}
	return sameRows("consumer group", a.ConsumerGroups, b.ConsumerGroups)
}

func sameGroupWrite(a, b *GroupWrite) string {
	if a.Group != b.Group {
		return fmt.Sprintf("group %d against %d", a.Group, b.Group)
	}
	if !sameMessage(a.Snapshot, b.Snapshot) {
		return fmt.Sprintf("snapshot %v against %v", a.Snapshot, b.Snapshot)
	}
	if (a.Entries == nil) != (b.Entries == nil) || len(a.Entries) != len(b.Entries) {
		return fmt.Sprintf("%d entries (nil %t) against %d (nil %t)", len(a.Entries), a.Entries == nil, len(b.Entries), b.Entries == nil)
	}
	for i := range a.Entries {
		if !sameMessage(a.Entries[i], b.Entries[i]) {
			return fmt.Sprintf("entry %d: %v against %v", i, a.Entries[i], b.Entries[i])
		}
	}
	if !sameMessage(a.HardState, b.HardState) {
		return fmt.Sprintf("hard state %v against %v", a.HardState, b.HardState)
	}
	if (a.Compact == nil) != (b.Compact == nil) {
		return fmt.Sprintf("compaction %v against %v", a.Compact, b.Compact)
	}
	if a.Compact != nil && !sameMessage(a.Compact.Snapshot, b.Compact.Snapshot) {
		return fmt.Sprintf("compaction snapshot %v against %v", a.Compact.Snapshot, b.Compact.Snapshot)
	}
	if a.AppliedIndex != b.AppliedIndex {
		return fmt.Sprintf("applied index %d against %d", a.AppliedIndex, b.AppliedIndex)
	}
	return ""
}

// sameMessage compares two raft messages of one type, either possibly nil.
func sameMessage[M interface {
	*raftpb.Snapshot | *raftpb.Entry | *raftpb.HardState
	proto.Message
}](a, b M) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	return a == nil || proto.Equal(a, b)
}

// sameRows compares two row slices element by element with
// reflect.DeepEqual, which tells nil from empty byte slices.
func sameRows[R LogRow | StateRow | PositionRow | OutboxRow | ConsumerGroupRow](table string, a, b []R) string {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return fmt.Sprintf("%s table: %d rows (nil %t) against %d (nil %t)", table, len(a), a == nil, len(b), b == nil)
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			return fmt.Sprintf("%s row %d: %#v against %#v", table, i, a[i], b[i])
		}
	}
	return ""
}
