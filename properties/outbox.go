package properties

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
)

// The outbox checks judge what a relay handed its downstream sink against
// the committed log (the reference log of every scope, LongestLogs of the
// replicas after quiesce). The seeds' promise, stated for Felix: the sink
// receives every committed record's event, in offset order per scope, at
// least once, each with the offset of the record (and so of the state) it
// goes with; nothing uncommitted reaches it. Redelivery after a relay
// crash is allowed: at least once, not exactly once.

// OutboxDelivery is one event a relay handed its downstream sink: the
// scope and offset the relay read it at, and the event.
type OutboxDelivery struct {
	// Seq is the delivery's place among the sink's (0 for the first).
	Seq    uint64
	Scope  felix.Scope
	Offset uint64
	// Enqueue marks an enqueue event; false is a publish.
	Enqueue bool
	// Event is the event's payload.
	Event string
	// Incarnation is the relay boot that delivered it (1 = first).
	Incarnation uint64
}

// OutboxDeliveryOf is the seq'th delivery, of entry e of scope by incarnation.
func OutboxDeliveryOf(seq uint64, scope felix.Scope, e *felix.Entry, incarnation uint64) OutboxDelivery {
	return OutboxDelivery{Seq: seq, Scope: scope, Offset: e.Offset, Enqueue: e.Record.Event == felix.EventEnqueue,
		Event: string(e.Record.Payload), Incarnation: incarnation}
}

// String renders the delivery for messages.
func (d *OutboxDelivery) String() string {
	return fmt.Sprintf("%s@%d %s(%q) by relay incarnation %d", d.Scope, d.Offset, eventKindName(d.Enqueue), d.Event, d.Incarnation)
}

// eventKindName names an event kind: enqueue or publish.
func eventKindName(enqueue bool) string {
	if enqueue {
		return "enqueue"
	}
	return "publish"
}

// outboxFindings collects one check's violations: the first one's message
// and how many there are. at is the order key of the findings added next
// (a delivery's Seq; 0 for a check that judges scope by scope, whose
// parts come in scope order): see MergeFindings.
type outboxFindings struct {
	name  InvariantName
	first string
	count int
	key   uint64
	at    uint64
}

func (f *outboxFindings) add(format string, args ...any) {
	if f.count == 0 {
		f.first, f.key = fmt.Sprintf(format, args...), f.at
	}
	f.count++
}

func (f *outboxFindings) err() error {
	if f.count == 0 {
		return nil
	}
	return firstOfManyError(f.name, f.first, f.count, f.key)
}

// deliveredOffsets indexes deliveries by scope and offset.
func deliveredOffsets(ds []OutboxDelivery) map[felix.Scope]map[uint64]bool {
	out := map[felix.Scope]map[uint64]bool{}
	for i := range ds {
		m := out[ds[i].Scope]
		if m == nil {
			m = map[uint64]bool{}
			out[ds[i].Scope] = m
		}
		m[ds[i].Offset] = true
	}
	return out
}

// OutboxDelivered checks that every record of the reference log reached
// the sink at least once, at its offset.
func OutboxDelivered(ref *ReplicaLog, ds []OutboxDelivery) error {
	f := outboxFindings{name: InvariantOutboxDelivered}
	got := deliveredOffsets(ds)
	for i := range ref.Scopes {
		v := &ref.Scopes[i]
		for o := v.FirstOffset; o < v.NextOffset; o++ {
			if !got[v.Scope][o] {
				f.add("scope %s: the committed record at offset %d (of %d..%d) never reached the sink", v.Scope, o, v.FirstOffset, v.NextOffset-1)
			}
		}
	}
	return f.err()
}

// OutboxInOrder checks that, per scope, the sink first received each
// offset only after every committed offset below it: a delivery may
// repeat an offset already delivered (a relay restarting), never skip
// ahead.
func OutboxInOrder(ref *ReplicaLog, ds []OutboxDelivery) error {
	f := outboxFindings{name: InvariantOutboxInOrder}
	// next[s] is the lowest offset of scope s not yet delivered, if every
	// offset below it was.
	next := map[felix.Scope]uint64{}
	for i := range ds {
		d := &ds[i]
		n, ok := next[d.Scope]
		if !ok {
			if v := ref.Scope(d.Scope); v != nil {
				n = v.FirstOffset
			}
		}
		f.at = d.Seq
		switch {
		case d.Offset > n:
			f.add("scope %s: delivery %d of the sink, %s, came before offset %d was ever delivered", d.Scope, d.Seq, d, n)
			next[d.Scope] = d.Offset + 1 // report each gap once
		case d.Offset == n:
			next[d.Scope] = n + 1
		default:
			next[d.Scope] = n // a redelivery
		}
	}
	return f.err()
}

// OutboxNothingUncommitted checks that every delivery is of an offset the
// scope's committed log holds.
func OutboxNothingUncommitted(ref *ReplicaLog, ds []OutboxDelivery) error {
	f := outboxFindings{name: InvariantOutboxNothingUncommitted}
	for i := range ds {
		d := &ds[i]
		v := ref.Scope(d.Scope)
		f.at = d.Seq
		switch {
		case v == nil:
			f.add("delivery %d of the sink, %s: no replica holds a committed record in that scope", d.Seq, d)
		case d.Offset >= v.NextOffset:
			f.add("delivery %d of the sink, %s: the scope's committed log ends at offset %d", d.Seq, d, v.NextOffset)
		}
	}
	return f.err()
}

// OutboxOffsetMatchesState checks that every delivery carries the event of
// the committed record at its offset: the offset the sink is given is the
// version of the state that record wrote.
func OutboxOffsetMatchesState(ref *ReplicaLog, ds []OutboxDelivery) error {
	f := outboxFindings{name: InvariantOutboxOffsetMatchesState}
	for i := range ds {
		d := &ds[i]
		v := ref.Scope(d.Scope)
		if v == nil {
			continue // OutboxNothingUncommitted reports it
		}
		e, ok := v.At(d.Offset)
		if !ok {
			continue // uncommitted, or dropped by retention: nothing to compare
		}
		if e.Enqueue != d.Enqueue || e.Event != d.Event {
			f.at = d.Seq
			f.add("delivery %d of the sink, %s: the committed record at that offset carries %s(%q)", d.Seq, d, eventKindName(e.Enqueue), e.Event)
		}
	}
	return f.err()
}
