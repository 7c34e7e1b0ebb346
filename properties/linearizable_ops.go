package properties

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/felixsim/felixsim/felix"
)

// linScope is one scope's operations and specification context, ready for
// the search.
type linScope struct {
	scope felix.Scope
	spec  *linSpec
	ops   []linOp
	// skip says why the scope cannot be checked ("" when it can).
	skip string
	// unknown and copies count the writes that may or may not have landed
	// and the extra copies of requests the logs show landed more than once.
	unknown, copies int
	// pinnedAt counts, per record, the offsets pinned to it.
	pinnedAt map[int32]int
}

// linBuilder gathers one scope's operations from the history.
type linBuilder struct {
	ls     *linScope
	intern map[string]int32
	// key is the scratch buffer record builds keys in.
	key []byte
	// landable counts, per record, the writes that may append it; firstNs
	// is the earliest invocation of a sent write carrying it, proto that
	// write (a copy repeats it).
	landable map[int32]int
	firstNs  map[int32]int64
	proto    map[int32]*linOp
}

// linScopesOf splits h by scope and converts each scope's operations for
// the search: writes answered ok, refused conditional writes, writes whose
// answer was lost (never returning), state_get, subscribe and group-fetch
// reads answered ok, and the reference log as a final read after every
// answer and every invocation. Writes recorded failed or not sent had no effect and are left
// out (FailedWriteLeftNoTrace checks that); reads that failed say nothing.
// Scopes come out in ascending order.
func linScopesOf(h *History, ref *ReplicaLog) []*linScope {
	per := map[felix.Scope]*linBuilder{}
	var order []felix.Scope
	var lastNs int64
	for i := range h.Ops {
		op := &h.Ops[i]
		lastNs = max(lastNs, op.InvokeNs, op.CompleteNs)
		b, ok := per[op.Scope]
		if !ok {
			b = newLinBuilder(op.Scope)
			per[op.Scope] = b
			order = append(order, op.Scope)
		}
		b.add(op)
	}
	sort.Slice(order, func(i, j int) bool { return order[i].Less(order[j]) })
	out := make([]*linScope, 0, len(order))
	for _, s := range order {
		b := per[s]
		b.finish(ref.Scope(s), lastNs)
		out = append(out, b.ls)
	}
	return out
}

func newLinBuilder(s felix.Scope) *linBuilder {
	return &linBuilder{ls: &linScope{scope: s, spec: &linSpec{pinned: map[uint64]int32{}}},
		intern: map[string]int32{}, landable: map[int32]int{}, firstNs: map[int32]int64{}, proto: map[int32]*linOp{}}
}

// add converts one history operation.
func (b *linBuilder) add(op *HistoryOp) {
	switch {
	case op.Kind.IsWrite():
		b.addWrite(op)
	case op.Outcome != OutcomeOK:
	case op.Kind == HistoryStateGet:
		b.ls.ops = append(b.ls.ops, linOp{kind: linStateGet, id: op.ID, key: op.Key, found: op.Found,
			value: string(op.Value), version: op.Version, callNs: op.InvokeNs, returnNs: op.CompleteNs})
	case op.Kind == HistorySubscribe, op.Kind == HistoryGroupFetch:
		lo := linOp{kind: linRead, id: op.ID, callNs: op.InvokeNs, returnNs: op.CompleteNs}
		for j := range op.Entries {
			r := b.historyRecord(&op.Entries[j].Record)
			b.pin(op.Entries[j].Offset, r)
			lo.entries = append(lo.entries, linEntry{offset: op.Entries[j].Offset, rec: r})
		}
		b.ls.ops = append(b.ls.ops, lo)
	}
}

// addWrite converts a write by its outcome.
func (b *linBuilder) addWrite(op *HistoryOp) {
	if op.NotSent || op.Outcome == OutcomeFailed {
		return
	}
	lo := linOp{id: op.ID, rec: b.historyRecord(op.Record), conditional: op.Kind.IsConditional(), expected: op.Record.ExpectedOffset,
		callNs: op.InvokeNs, returnNs: op.CompleteNs}
	switch op.Outcome {
	case OutcomeOK:
		lo.kind, lo.offset = linWrite, op.Offset
		b.pin(op.Offset, lo.rec)
		b.landable[lo.rec]++
	case OutcomeRefused:
		lo.kind, lo.offset = linRefused, op.Tail
	default: // unknown or pending: it never returns
		lo.kind, lo.returnNs = linMaybe, math.MaxInt64
		b.landable[lo.rec]++
		b.ls.unknown++
	}
	if t, ok := b.firstNs[lo.rec]; !ok || op.InvokeNs < t {
		b.firstNs[lo.rec] = op.InvokeNs
		b.proto[lo.rec] = &lo
	}
	b.ls.ops = append(b.ls.ops, lo)
}

// finish adds the final read of the reference log and the extra copies,
// or marks the scope skipped when offsets nobody observed were dropped.
func (b *linBuilder) finish(l *ReplicaView, lastNs int64) {
	if l == nil {
		b.ls.skip = "no replica holds a log for the scope"
		return
	}
	// The replicas are read after every call was made and every answer came.
	fin := linOp{kind: linFinal, first: l.FirstOffset, next: l.NextOffset, callNs: lastNs + 1, returnNs: lastNs + 1}
	for i := range l.Log {
		if want := l.FirstOffset + uint64(i); l.Log[i].Offset != want || want >= l.NextOffset {
			b.ls.skip = fmt.Sprintf("the reference log is malformed: entry %d has offset %d in the window %d..%d", i, l.Log[i].Offset, l.FirstOffset, l.NextOffset)
			return
		}
		fin.entries = append(fin.entries, b.entry(&l.Log[i]))
	}
	if uint64(len(l.Log)) != l.NextOffset-l.FirstOffset {
		b.ls.skip = fmt.Sprintf("the reference log is malformed: %d entries in the window %d..%d", len(l.Log), l.FirstOffset, l.NextOffset)
		return
	}
	for off := uint64(0); off < l.FirstOffset; off++ {
		if _, ok := b.ls.spec.pinned[off]; !ok {
			b.ls.skip = fmt.Sprintf("retention dropped offset %d, which no client observed", off)
			return
		}
	}
	b.ls.ops = append(b.ls.ops, fin)
	b.ls.spec.hasFinal, b.ls.spec.finalNext = true, l.NextOffset
	b.addCopies()
}

// addCopies adds, for each record the logs and reads show at more offsets
// than there are writes that may append it, that many extra copies of its
// earliest request (a duplicated or redirected request lands again). A
// copy is a write whose answer never came, invoked with the earliest
// write that carried the record; records no sent write carried get none.
func (b *linBuilder) addCopies() {
	count := map[int32]int{}
	for _, r := range b.ls.spec.pinned { //det:ok a count per record
		if r != pinConflict {
			count[r]++
		}
	}
	b.ls.pinnedAt = count
	var recs []int32
	for r := range count { //det:ok sorted below
		recs = append(recs, r)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i] < recs[j] })
	for _, r := range recs {
		p, ok := b.proto[r]
		if !ok {
			continue
		}
		for n := count[r] - b.landable[r]; n > 0; n-- {
			c := *p
			c.kind, c.copy, c.callNs, c.returnNs = linMaybe, true, b.firstNs[r], math.MaxInt64
			b.ls.ops = append(b.ls.ops, c)
			b.ls.copies++
		}
	}
}

// entry interns a read's record and pins its offset.
func (b *linBuilder) entry(e *ViewEntry) linEntry {
	r := b.record(e)
	b.pin(e.Offset, r)
	return linEntry{offset: e.Offset, rec: r}
}

// pin records that offset off holds record r.
func (b *linBuilder) pin(off uint64, r int32) {
	if p, ok := b.ls.spec.pinned[off]; ok && p != r {
		b.ls.spec.pinned[off] = pinConflict
		return
	}
	b.ls.spec.pinned[off] = r
}

// record interns a record by everything a client sees of it (event,
// kind and state operations, as SameRecord compares them).
func (b *linBuilder) record(e *ViewEntry) int32 {
	k := b.key[:0]
	k = append(k, boolByte(e.HasEvent), boolByte(e.Enqueue))
	k = appendField(k, e.Event)
	for _, o := range e.Ops {
		k = append(k, boolByte(o.Delete))
		k = appendField(appendField(k, o.Key), o.Value)
	}
	b.key = k
	if r, ok := b.intern[string(k)]; ok {
		return r
	}
	r := int32(len(b.ls.spec.recs))
	rec := linRecord{entry: *e, touch: map[string]linTouch{}}
	for _, o := range e.Ops {
		rec.touch[o.Key] = linTouch{del: o.Delete, value: o.Value}
	}
	b.ls.spec.recs = append(b.ls.spec.recs, rec)
	b.intern[string(k)] = r
	return r
}

// historyRecord interns a client's record: the key record would build for
// ViewEntryOf(r), without converting a record seen before.
func (b *linBuilder) historyRecord(r *felix.Record) int32 {
	hasEvent := r.Event == felix.EventPublish || r.Event == felix.EventEnqueue
	k := append(b.key[:0], boolByte(hasEvent), boolByte(r.Event == felix.EventEnqueue))
	k = appendBytesField(k, r.Payload)
	for _, o := range r.Ops {
		k = append(k, boolByte(o.Kind == felix.OpDelete))
		k = appendBytesField(appendField(k, o.Key), o.Value)
	}
	b.key = k
	if id, ok := b.intern[string(k)]; ok {
		return id
	}
	e := ViewEntryOf(0, r)
	return b.record(&e)
}

func appendBytesField(k, s []byte) []byte {
	return append(binary.AppendUvarint(k, uint64(len(s))), s...)
}

// appendField appends s, length first, so that fields cannot run together.
func appendField(k []byte, s string) []byte {
	return append(binary.AppendUvarint(k, uint64(len(s))), s...)
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// describeRecord renders a record as payload[op, …] for messages.
func describeRecord(e *ViewEntry) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%q", e.Event)
	if !e.HasEvent {
		s.WriteString("(no event)")
	}
	if len(e.Ops) > 0 {
		s.WriteByte('[')
		for i, o := range e.Ops {
			if i > 0 {
				s.WriteString(", ")
			}
			s.WriteString(o.String())
		}
		s.WriteByte(']')
	}
	return s.String()
}

// neverBeforeFinal reports whether op is a write of unknown outcome that
// the cuts refuse everywhere before the final read: its record is pinned
// at no offset, while every offset below the final log's end is pinned
// (to the final log's record, or, below its window, by an observation;
// a scope where that fails is skipped). After the final read nothing
// observes the log, so such a write always steps there. Leaving it out of
// the cut search therefore changes no verdict: a linearization of the
// rest extends by placing it last, and one with it has it after the
// final read, where removing it disturbs nothing.
func (ls *linScope) neverBeforeFinal(op *linOp) bool {
	return op.kind == linMaybe && ls.spec.hasFinal && ls.pinnedAt[op.rec] == 0
}
