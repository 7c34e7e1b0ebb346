package world

import (
	"fmt"

	"github.com/felixsim/felixsim/sim/simapi"
)

// EventKind says what an executed event did; it is hashed into the trace.
// The zero value is invalid.
type EventKind uint8

// Event kinds. Their numbers are part of the trace hash: append, never renumber.
const (
	evInvalid     EventKind = iota
	EvBoot                  // a node's process booted (start or restart)
	EvTimer                 // a node's timer fired
	EvDeliver               // a message reached its receiver
	EvDrop                  // a message was dropped (detail says why)
	EvFault                 // a fault-plan event was applied
	EvCall                  // a harness callback scheduled with World.At
	EvKill                  // a node was killed
	EvPause                 // a node was paused
	EvResume                // a node resumed
	EvHeal                  // every fault was healed
	EvNote                  // a process folded an observation into the trace
	EvHeld                  // a timer or message waited on a paused node
	EvDiskReplace           // a node's disk was replaced by an empty one
	evKindCount
)

var eventKindNames = [...]string{"invalid", "boot", "timer", "deliver", "drop", "fault", "call", "kill", "pause", "resume", "heal", "note", "held", "diskreplace"}

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

// queue is a binary min-heap of small keys ordered by (atNs, seq); the
// events themselves sit in a slab and only their slot index moves, so sifting
// copies 24 bytes instead of a whole event.
type queue struct {
	heap []qkey
	slab []event
	free []uint32 // free slab slots
	seq  uint64
}

type qkey struct {
	atNs int64
	seq  uint64
	slot uint32
}

func (a qkey) before(b qkey) bool { return a.atNs < b.atNs || (a.atNs == b.atNs && a.seq < b.seq) }

// push stamps ev with the next sequence number and inserts it.
func (q *queue) push(ev event) {
	if len(q.heap) >= QueueLenMax {
		panic(fmt.Sprintf("sim: event queue holds %d events (QueueLenMax %d): runaway scheduling; last kind %v at %d ns on node %d",
			len(q.heap), QueueLenMax, ev.kind, ev.atNs, ev.node))
	}
	q.seq++
	ev.seq = q.seq
	var slot uint32
	if n := len(q.free); n > 0 {
		slot = q.free[n-1]
		q.free = q.free[:n-1]
		q.slab[slot] = ev
	} else {
		slot = uint32(len(q.slab))
		q.slab = append(q.slab, ev)
	}
	k := qkey{atNs: ev.atNs, seq: ev.seq, slot: slot}
	i := len(q.heap)
	q.heap = append(q.heap, k)
	for i > 0 {
		p := (i - 1) / 2
		if !k.before(q.heap[p]) {
			break
		}
		q.heap[i] = q.heap[p]
		i = p
	}
	q.heap[i] = k
}

// pop removes and returns the earliest event; the queue must not be empty.
func (q *queue) pop() event {
	top := q.heap[0]
	n := len(q.heap) - 1
	last := q.heap[n]
	q.heap = q.heap[:n]
	if n > 0 {
		i := 0
		for {
			l := 2*i + 1
			if l >= n {
				break
			}
			m := l
			if r := l + 1; r < n && q.heap[r].before(q.heap[l]) {
				m = r
			}
			if !q.heap[m].before(last) {
				break
			}
			q.heap[i] = q.heap[m]
			i = m
		}
		q.heap[i] = last
	}
	ev := q.slab[top.slot]
	q.slab[top.slot] = event{} // release the message and callback to the GC
	q.free = append(q.free, top.slot)
	return ev
}

// peekAtNs returns the time of the earliest event; the queue must not be empty.
func (q *queue) peekAtNs() int64 { return q.heap[0].atNs }

func (q *queue) len() int { return len(q.heap) }
