package sim

import (
	"fmt"

	"github.com/felixsim/felixsim/sim/simapi"
)

// EventKind says what an executed event did; it is hashed into the trace.
// The zero value is invalid.
type EventKind uint8

// Event kinds. Their numbers are part of the trace hash: append, never renumber.
const (
	evInvalid EventKind = iota
	EvBoot              // a node's process booted (start or restart)
	EvTimer             // a node's timer fired
	EvDeliver           // a message reached its receiver
	EvDrop              // a message was dropped (detail says why)
	EvFault             // a fault-plan event was applied
	EvCall              // a harness callback scheduled with World.At
	EvKill              // a node was killed
	EvPause             // a node was paused
	EvResume            // a node resumed
	EvHeal              // every fault was healed
	EvNote              // a process folded an observation into the trace
	EvHeld              // a timer or message waited on a paused node
	evKindCount
)

var eventKindNames = [...]string{"invalid", "boot", "timer", "deliver", "drop", "fault", "call", "kill", "pause", "resume", "heal", "note", "held"}

// String names the kind.
func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// event is one scheduled happening. Ordering is by (atNs, seq); seq is the
// global insertion counter, so ties break by scheduling order.
type event struct {
	atNs int64
	seq  uint64
	kind EventKind
	node int32 // the node it happens on (receiver for deliveries), -1 for none
	peer int32 // sender of a delivery, -1 otherwise
	id   uint64
	gen  uint64 // timer generation or target incarnation, per kind
	msg  simapi.Message
	fn   func()
}

// QueueLenMax caps the event queue. Overflow policy: panic, because a queue
// this long means a runaway (a process re-arming timers or flooding messages
// without bound), and silently dropping events would hide it.
const QueueLenMax = 1 << 20

// queue is a binary min-heap of events keyed by (atNs, seq).
type queue struct {
	items []event
	seq   uint64
}

func (q *queue) less(i, j int) bool {
	a, b := &q.items[i], &q.items[j]
	if a.atNs != b.atNs {
		return a.atNs < b.atNs
	}
	return a.seq < b.seq
}

// push stamps ev with the next sequence number and inserts it.
func (q *queue) push(ev event) {
	if len(q.items) >= QueueLenMax {
		panic(fmt.Sprintf("sim: event queue holds %d events (QueueLenMax %d): runaway scheduling; last kind %v at %d ns on node %d",
			len(q.items), QueueLenMax, ev.kind, ev.atNs, ev.node))
	}
	q.seq++
	ev.seq = q.seq
	q.items = append(q.items, ev)
	i := len(q.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.items[i], q.items[p] = q.items[p], q.items[i]
		i = p
	}
}

// pop removes and returns the earliest event; the queue must not be empty.
func (q *queue) pop() event {
	n := len(q.items) - 1
	top := q.items[0]
	q.items[0] = q.items[n]
	q.items[n] = event{}
	q.items = q.items[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && q.less(r, l) {
			m = r
		}
		if !q.less(m, i) {
			break
		}
		q.items[i], q.items[m] = q.items[m], q.items[i]
		i = m
	}
	return top
}

// peekAtNs returns the time of the earliest event; the queue must not be empty.
func (q *queue) peekAtNs() int64 { return q.items[0].atNs }

func (q *queue) len() int { return len(q.items) }
