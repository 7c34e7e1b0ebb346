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
	// unknown counts the writes whose outcome is unknown or pending;
	// copies the landings of requests whose writer the search chooses.
	unknown, copies int
}

// linLandings says how the builder gives the search the landings of
// requests no acknowledgement places (see addLandings).
type linLandings uint8

const (
	// linPooled: per record, as many interchangeable landings as the logs
	// show beyond its acknowledged writes, invoked with the earliest
	// request that carried it (the checked form).
	linPooled linLandings = iota + 1
	// linPerRequest: every sent request of a record may land as often as
	// the logs show the record (the plain statement; for the proof test).
	linPerRequest
)

// linBuilder gathers one scope's operations from the history.
type linBuilder struct {
	ls       *linScope
	landings linLandings
	intern   map[string]int32
	// key is the scratch buffer record builds keys in.
	key []byte
	// writers lists, per record, the sent writes that carried it and were
	// not failed, in history order; acked counts those answered ok.
	writers map[int32][]linOp
	acked   map[int32]int
}

// linScopesOf splits h by scope and converts each scope's operations for
// the search: writes answered ok, refused conditional writes, the
// landings of requests no answer places (writes whose answer was lost,
// network duplicates, copies re-sent after a redirect or by a retry;
// addLandings), state_get, subscribe and group-fetch reads answered ok,
// and the reference log as a final read after every answer and every
// invocation. Writes recorded failed or not sent had no effect and are
// left out (FailedWriteLeftNoTrace checks that); reads that failed say
// nothing. Scopes come out in ascending order.
func linScopesOf(h *History, ref *ReplicaLog, landings linLandings, latestNs int64) []*linScope {
	per := map[felix.Scope]*linBuilder{}
	var order []felix.Scope
	for i := range h.Ops {
		op := &h.Ops[i]
		b, ok := per[op.Scope]
		if !ok {
			b = newLinBuilder(op.Scope, landings)
			per[op.Scope] = b
			order = append(order, op.Scope)
		}
		b.add(op)
	}
	sort.Slice(order, func(i, j int) bool { return order[i].Less(order[j]) })
	out := make([]*linScope, 0, len(order))
	for _, s := range order {
		b := per[s]
		b.finish(ref.Scope(s), latestNs)
		out = append(out, b.ls)
	}
	return out
}

// latestNsOf is h's latest invocation or answer.
func latestNsOf(h *History) int64 {
	var latestNs int64
	for i := range h.Ops {
		latestNs = max(latestNs, h.Ops[i].InvokeNs, h.Ops[i].CompleteNs)
	}
	return latestNs
}

func newLinBuilder(s felix.Scope, landings linLandings) *linBuilder {
	sp := &linSpec{pinned: map[uint64]int32{}, pooled: landings == linPooled, acked: map[uint64]bool{}}
	return &linBuilder{ls: &linScope{scope: s, spec: sp}, landings: landings,
		intern: map[string]int32{}, writers: map[int32][]linOp{}, acked: map[int32]int{}}
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
	case op.Kind == HistoryGroupAck:
		b.ls.ops = append(b.ls.ops, linOp{kind: linAck, id: op.ID, group: op.Group, offset: op.AckOffset, callNs: op.InvokeNs, returnNs: op.CompleteNs})
	case op.Kind == HistorySubscribe, op.Kind == HistoryGroupFetch:
		lo := linOp{kind: linRead, id: op.ID, lagging: op.Kind == HistorySubscribe, group: op.Group, callNs: op.InvokeNs, returnNs: op.CompleteNs}
		for j := range op.Entries {
			r := b.historyRecord(&op.Entries[j].Record)
			b.pin(op.Entries[j].Offset, r)
			lo.entries = append(lo.entries, linEntry{offset: op.Entries[j].Offset, rec: r})
		}
		b.ls.ops = append(b.ls.ops, lo)
	}
}

// addWrite converts a write by its outcome: an acknowledged one appends
// at its offset, a refused conditional one observes the tail; every sent
// one is a writer of its record (addLandings).
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
		b.acked[lo.rec]++
		b.ls.spec.acked[op.Offset] = true
	case OutcomeRefused:
		lo.kind, lo.offset = linRefused, op.Tail
	default: // unknown or pending: no answer places it
		lo.kind = linMaybe
		b.ls.unknown++
	}
	b.writers[lo.rec] = append(b.writers[lo.rec], lo)
	if lo.kind != linMaybe {
		b.ls.ops = append(b.ls.ops, lo)
	}
}

// finish adds the final read of the reference log and the landings,
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
	b.addDrops(l.Drops)
	b.addLandings()
}

// addDrops adds the scope's observed retention steps: retention by count
// to the writes (the model applies it with the write that made the log
// that long), retention by age as steps of their own, each taking effect
// when the log had its length and before a replica applied it.
func (b *linBuilder) addDrops(drops []RetentionDrop) {
	if drops == nil {
		return
	}
	sp := b.ls.spec
	sp.dropsKnown, sp.dropWithWrite = true, map[uint64]uint64{}
	for _, d := range drops {
		if d.WithWrite {
			sp.dropWithWrite[d.AtNext] = max(sp.dropWithWrite[d.AtNext], d.Below)
			continue
		}
		b.ls.ops = append(b.ls.ops, linOp{kind: linDrop, offset: d.AtNext, first: d.Below, callNs: 0, returnNs: d.AppliedNs})
	}
}

// addLandings adds the landings of requests that no answer places. The
// broker does not deduplicate requests and a write is not idempotent (the
// spec: re-sending one may write it twice), so every copy of a sent
// request that was not refused for every copy may land: its answer was
// lost, the network duplicated it, the client re-sent it after NotLeader
// or the workload retried it. Each landing never returns: it takes effect
// at any point after its request's invocation, or after the final read,
// which is never. A landing before the final read fills an offset the
// logs or a read pin to its record (the final log covers every offset),
// so a record needs at most as many landings as it has pinned offsets
// beyond its acknowledged writes.
//
// linPerRequest gives every writer of a record that many landings (one
// fewer for an acknowledged one). linPooled gives the record that many in
// all, each invoked with its earliest writer: the landings of one record
// are identical, and one invoked earlier can stand in for any invoked
// later, so the verdicts agree (TestHistoryLinearizableCutsKeepVerdicts).
// A conditional request lands only at its expected offset, so at most
// once. Records no sent write carried get no landing.
func (b *linBuilder) addLandings() {
	count := map[int32]int{}
	for _, r := range b.ls.spec.pinned { //det:ok a count per record
		if r != pinConflict {
			count[r]++
		}
	}
	var recs []int32
	for r := range count { //det:ok sorted below
		recs = append(recs, r)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i] < recs[j] })
	for _, r := range recs {
		ws := b.writers[r]
		if len(ws) == 0 {
			continue
		}
		if b.landings == linPerRequest {
			for i := range ws {
				n := count[r]
				if ws[i].kind == linWrite {
					n--
				}
				b.addCopies(&ws[i], ws[i].callNs, n)
			}
			continue
		}
		first := &ws[0]
		for i := range ws {
			if ws[i].callNs < first.callNs {
				first = &ws[i]
			}
		}
		n := count[r] - b.acked[r]
		if first.conditional {
			n = min(n, 1)
		}
		b.addCopies(first, first.callNs, n)
	}
}

// addCopies adds n landings of w's request, invoked at callNs and never
// returning, numbered for the search's fixed order (linSpec.step).
func (b *linBuilder) addCopies(w *linOp, callNs int64, n int) {
	for i := 0; i < n; i++ {
		c := *w
		c.kind, c.copy, c.copyIdx, c.callNs, c.returnNs = linMaybe, true, i, callNs, math.MaxInt64
		b.ls.ops = append(b.ls.ops, c)
		b.ls.copies++
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
