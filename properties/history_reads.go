package properties

import (
	"sort"

	"github.com/felixsim/felixsim/felix"
)

// keyTouch is one record's effect on one key: the last operation on the
// key in the record at offset.
type keyTouch struct {
	offset uint64
	del    bool
	value  string
}

// keyIndex lists, per key, the records of one scope's log that touch it,
// ascending by offset.
type keyIndex map[string][]keyTouch

func indexKeys(l *ReplicaView) keyIndex {
	idx := keyIndex{}
	for i := range l.Log {
		e := &l.Log[i]
		last := map[string]int{}
		for j := range e.Ops {
			last[e.Ops[j].Key] = j
		}
		for j := range e.Ops {
			op := &e.Ops[j]
			if last[op.Key] == j {
				idx[op.Key] = append(idx[op.Key], keyTouch{offset: e.Offset, del: op.Delete, value: op.Value})
			}
		}
	}
	return idx
}

// scopeAcks is the ok writes of one scope sorted by completion time, with
// the running maximum of their offsets.
type scopeAcks struct {
	completeNs []int64
	maxOffset  []uint64
}

func collectAcks(h *History) map[felix.Scope]*scopeAcks {
	type ack struct {
		at  int64
		off uint64
	}
	per := map[felix.Scope][]ack{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind.IsWrite() && op.Outcome == OutcomeOK {
			per[op.Scope] = append(per[op.Scope], ack{op.CompleteNs, op.Offset})
		}
	}
	out := map[felix.Scope]*scopeAcks{}
	for s, acks := range per { //det:ok each scope's entry is built alone; the result is a map read by key
		sort.Slice(acks, func(i, j int) bool {
			return acks[i].at < acks[j].at || acks[i].at == acks[j].at && acks[i].off < acks[j].off
		})
		sa := &scopeAcks{}
		var m uint64
		for _, a := range acks {
			m = max(m, a.off)
			sa.completeNs = append(sa.completeNs, a.at)
			sa.maxOffset = append(sa.maxOffset, m)
		}
		out[s] = sa
	}
	return out
}

// floor is the smallest log position (count of applied offsets, i.e. one
// past an offset) a read invoked at invokeNs must reflect: one past every
// write of the scope acknowledged before it; 0 when none was.
func (a *scopeAcks) floor(invokeNs int64) uint64 {
	if a == nil {
		return 0
	}
	n := sort.Search(len(a.completeNs), func(i int) bool { return a.completeNs[i] >= invokeNs })
	if n == 0 {
		return 0
	}
	return a.maxOffset[n-1] + 1
}

// HistoryReadsLinearizable checks every state_get answered ok against the
// reference log, in the simple form: the answer must be the key's state
// after some log prefix that includes every write to the scope
// acknowledged before the read was invoked. A found value at version v is
// stale if a record after v but inside that floor touched the key; an
// absent answer is stale if the key was present at the floor and no
// delete of it could have been applied before the read completed (one
// whose record, and every record between the floor and it, was written by
// a write invoked before then). Reads whose scope's log is not retained from its
// first offset are skipped. A found value must also not come from the
// future: the write that carried the record at its version (by payload)
// must have been invoked before the read completed.
func HistoryReadsLinearizable(h *History, ref *ReplicaLog) error {
	v := violations{what: InvariantLinearizableRead}
	acks := collectAcks(h)
	firstInvoke := firstInvokes(h)
	idx := map[felix.Scope]keyIndex{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind != HistoryStateGet || op.Outcome != OutcomeOK {
			continue
		}
		v.at = op.ID
		l := ref.Scope(op.Scope)
		floor := acks[op.Scope].floor(op.InvokeNs)
		if l == nil {
			if op.Found || floor > 0 {
				v.add("op %d (state_get %s on %s) found=%t with writes acknowledged before it, but no replica holds a log for the scope", op.ID, op.Key, op.Scope, op.Found)
			}
			continue
		}
		if l.FirstOffset > 0 {
			continue // offsets start at 0: part of the log is no longer retained
		}
		ki, ok := idx[op.Scope]
		if !ok {
			ki = indexKeys(l)
			idx[op.Scope] = ki
		}
		if op.Found {
			checkFoundRead(&v, op, ki[op.Key], floor)
		} else {
			checkAbsentRead(&v, op, l, ki[op.Key], floor, firstInvoke)
		}
		checkNotFuture(&v, op, l, firstInvoke)
	}
	return v.err()
}

// firstInvokes maps each write payload to the earliest invocation that
// carried it (a retry carries its original's payload).
func firstInvokes(h *History) map[string]int64 {
	out := map[string]int64{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if !op.Kind.IsWrite() {
			continue
		}
		p := string(op.Record.Payload)
		if t, ok := out[p]; !ok || op.InvokeNs < t {
			out[p] = op.InvokeNs
		}
	}
	return out
}

// checkNotFuture refuses a found value whose record's write was first
// invoked after the read completed.
func checkNotFuture(v *violations, op *HistoryOp, l *ReplicaView, firstInvoke map[string]int64) {
	if !op.Found {
		return
	}
	e, ok := l.At(op.Version)
	if !ok {
		return // VersionIsOffset reports a version the log does not hold
	}
	if t, ok := firstInvoke[e.Event]; ok && t > op.CompleteNs {
		v.add("op %d (state_get %s on %s) completed at %d ns with version %d, whose write was first invoked at %d ns: a read from the future",
			op.ID, op.Key, op.Scope, op.CompleteNs, op.Version, t)
	}
}

// checkFoundRead refuses a found value that a record inside the floor
// overwrote.
func checkFoundRead(v *violations, op *HistoryOp, touches []keyTouch, floor uint64) {
	n := sort.Search(len(touches), func(i int) bool { return touches[i].offset >= floor })
	for _, t := range touches[:n] {
		if t.offset > op.Version {
			v.add("op %d (state_get %s on %s at %d ns) returned version %d, but offset %d (below %d, acknowledged before the read) rewrote the key",
				op.ID, op.Key, op.Scope, op.InvokeNs, op.Version, t.offset, floor)
			return
		}
	}
}

// checkAbsentRead refuses an absent answer when the key was present at
// the floor and no delete could have been applied before the read
// completed. A delete at offset d excuses the read only if the read's log
// prefix could have reached d: every record from the floor through d was
// written by a write invoked before the read completed (a log prefix
// holds a record only after its write was invoked). Records whose write
// the history does not name are given the benefit of the doubt.
func checkAbsentRead(v *violations, op *HistoryOp, l *ReplicaView, touches []keyTouch, floor uint64, firstInvoke map[string]int64) {
	n := sort.Search(len(touches), func(i int) bool { return touches[i].offset >= floor })
	if n == 0 || touches[n-1].del {
		return
	}
	put := touches[n-1].offset
	for off := floor; off < l.NextOffset; off++ {
		e, ok := l.At(off)
		if !ok {
			return // not retained: nothing more to say
		}
		if t, ok := firstInvoke[e.Event]; ok && t > op.CompleteNs {
			v.add("op %d (state_get %s on %s, %d..%d ns) found nothing, but offset %d put the key below the acknowledged floor %d, and no delete of it comes before offset %d, whose write was first invoked at %d ns, after the read completed",
				op.ID, op.Key, op.Scope, op.InvokeNs, op.CompleteNs, put, floor, off, t)
			return
		}
		if deletesLast(e, op.Key) {
			return
		}
	}
	v.add("op %d (state_get %s on %s at %d ns) found nothing, but offset %d put the key before the acknowledged floor %d and nothing deletes it later",
		op.ID, op.Key, op.Scope, op.InvokeNs, put, floor)
}

// deletesLast reports whether e's last operation on key is a delete.
func deletesLast(e *ViewEntry, key string) bool {
	for j := len(e.Ops) - 1; j >= 0; j-- {
		if e.Ops[j].Key == key {
			return e.Ops[j].Delete
		}
	}
	return false
}

// HistoryReadVersionIsOffset is VersionIsOffset from the reader's side:
// every state_get answered ok with a value reports a version that is an
// offset of the scope's reference log whose record's last operation on
// that key puts exactly the value read.
func HistoryReadVersionIsOffset(h *History, ref *ReplicaLog) error {
	v := violations{what: InvariantVersionIsOffset}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind != HistoryStateGet || op.Outcome != OutcomeOK || !op.Found {
			continue
		}
		v.at = op.ID
		l := ref.Scope(op.Scope)
		if l == nil {
			v.add("op %d (state_get %s on %s) read version %d; no replica holds a log for the scope", op.ID, op.Key, op.Scope, op.Version)
			continue
		}
		if op.Version < l.FirstOffset {
			continue
		}
		e, ok := l.At(op.Version)
		if !ok {
			v.add("op %d (state_get %s on %s) read version %d; the log ends before it (next offset %d)", op.ID, op.Key, op.Scope, op.Version, l.NextOffset)
			continue
		}
		checkVersion(&v, op, e)
	}
	return v.err()
}

func checkVersion(v *violations, op *HistoryOp, e *ViewEntry) {
	for j := len(e.Ops) - 1; j >= 0; j-- {
		w := &e.Ops[j]
		if w.Key != op.Key {
			continue
		}
		if w.Delete {
			v.add("op %d (state_get %s on %s) read %q at version %d, but that record deletes the key", op.ID, op.Key, op.Scope, op.Value, op.Version)
		} else if w.Value != string(op.Value) {
			v.add("op %d (state_get %s on %s) read %q at version %d, but that record puts %q", op.ID, op.Key, op.Scope, op.Value, op.Version, w.Value)
		}
		return
	}
	v.add("op %d (state_get %s on %s) read %q at version %d, but that record does not touch the key", op.ID, op.Key, op.Scope, op.Value, op.Version)
}
