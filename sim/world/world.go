package world

import (
	"errors"
	"fmt"

	"github.com/felixsim/felixsim/sim/prng"
	"github.com/felixsim/felixsim/sim/simapi"
	"github.com/felixsim/felixsim/vfs"
)

// nodeStatus is a process slot's lifecycle state; the zero value is invalid.
type nodeStatus uint8

const (
	statusInvalid nodeStatus = iota
	statusDown               // not running: before first boot or after a kill
	statusUp                 // running
	statusPaused             // alive but running nothing; its events wait
)

// HeldMessagesMax caps the messages waiting on one paused node. Overflow
// policy: drop the newest (traced as a drop), as a full socket buffer would.
const HeldMessagesMax = 4096

// node is one process slot: lifecycle, clock, timers, disk, random stream.
//
// Invariant: proc != nil iff status != statusDown.
type node struct {
	id     int
	spec   NodeSpec
	status nodeStatus
	inc    uint64 // incarnation; bumped at every boot
	proc   simapi.Process
	clock  nodeClock
	timers map[uint64]*timer
	held   []event // timers and messages that arrived while paused, in order
	// heldMessages counts the deliveries in held.
	heldMessages int
	// pausedBy is the plan fault behind the current pause.
	pausedBy faultCause
	mem      *vfs.Mem
	disk     *diskFaults
	fs       *FaultFS
	rand     *prng.Rand
}

// World is one deterministic simulation. It is driven by one goroutine; a
// process holds at most one open World at a time (see Close).
type World struct {
	cfg   Config
	nowNs int64
	q     queue
	tr    tracer
	nodes []*node
	net   network
	// busyNs is simulated time the running handler has spent in disk
	// latency; its sends, timers and clock reads are shifted by it.
	busyNs   int64
	curNode  int
	timerSeq uint64
	// faults fire the plan faults scheduled so far, by index (see
	// ScheduleFault).
	faults []func(idx int)
	// cause is the plan fault being applied (causeNone outside
	// RunFault); effected marks the faults that had an effect.
	cause    faultCause
	effected []bool
	points   []faultPoints
	healed   bool
	// instantEvents counts events executed at the current nowNs.
	// Invariant: instantEvents <= InstantEventsMax.
	instantEvents int
	// diskDraws is each node's keyed disk stream (see instantDraws):
	// latency, fsync and read errors, corrupted bits and torn tails.
	diskDraws []instantDraws
	// unwinding is the crash at a disk operation (or a targeted kill)
	// whose panic is carrying its node's call back to runNode; nil
	// otherwise.
	unwinding *crashUnwind
	// watches are the targeted faults waiting for their moment, oldest
	// first (see watch.go). Invariant: len(watches) <= WatchesMax.
	watches []watch
	g       *guard
	closed  bool
	// observer, when set, is called after every executed event (see SetObserver).
	observer func(atNs int64, node int32)
}

// New builds a world, takes the process-wide simulation guard, installs the
// seeded crypto/rand reader and schedules every node's first boot at time 0.
// Close must be called when the run is over.
func New(cfg Config) (*World, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	raft := newRaftDraws(cfg.Seed, len(cfg.Nodes))
	g, err := acquireGuard(raft)
	if err != nil {
		return nil, err
	}
	w := &World{cfg: cfg, curNode: -1, g: g}
	raft.w = w
	w.tr = tracer{hash: TraceHashInit, record: cfg.RecordTrace, eventsMax: cfg.TraceEventsMax}
	w.tr.byNode = make([]EventKindCounts, len(cfg.Nodes)+1)
	if w.tr.eventsMax == 0 {
		w.tr.eventsMax = TraceEventsMaxDefault
	}
	w.net = newNetwork(&cfg)
	for i, spec := range cfg.Nodes {
		n := &node{id: i, spec: spec, status: statusDown, timers: map[uint64]*timer{}, mem: vfs.NewMem(),
			rand: prng.Derive(cfg.Seed, fmt.Sprintf("node/%d", i))}
		n.clock = nodeClock{baseLocalNs: spec.ClockSkewNs, driftPpm: spec.ClockDriftPpm}
		n.disk = &diskFaults{w: w, node: i}
		w.diskDraws = append(w.diskDraws, newInstantDraws(cfg.Seed, fmt.Sprintf("disk/%d", i)))
		n.fs = NewFaultFS(n.mem, n.disk)
		w.nodes = append(w.nodes, n)
		w.q.push(event{atNs: 0, kind: EvBoot, node: int32(i), peer: -1, gen: 0})
	}
	return w, nil
}

// Close ends the run: it disarms the failpoints the run armed, restores
// crypto/rand.Reader and releases the process-wide guard. It is idempotent.
func (w *World) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	return w.g.release()
}

// NowNs is the world's virtual time.
func (w *World) NowNs() int64 { return w.nowNs }

// TraceHash is the running hash over every event executed so far.
func (w *World) TraceHash() uint64 { return w.tr.hash }

// EventsExecuted counts the events folded into the trace hash.
func (w *World) EventsExecuted() uint64 { return w.tr.count }

// EventsByKind counts the events executed so far by kind, over every node
// and the harness.
func (w *World) EventsByKind() EventKindCounts {
	var c EventKindCounts
	for _, n := range w.tr.byNode {
		c.Add(n)
	}
	return c
}

// NodeEventsByKind counts the events executed so far on node id (-1: the
// harness's own events: calls, faults, heal) by kind.
func (w *World) NodeEventsByKind(id int) EventKindCounts {
	if id < -1 || id+1 >= len(w.tr.byNode) {
		panic(fmt.Sprintf("sim: node %d out of range [-1, %d)", id, len(w.tr.byNode)-1))
	}
	return w.tr.byNode[id+1]
}

// NodeName is node id's label (NodeSpec.Name).
func (w *World) NodeName(id int) string { return w.node(id).spec.Name }

// Trace returns the recorded events (nil unless Config.RecordTrace) and
// whether recording stopped at the cap.
func (w *World) Trace() (events []TraceEvent, truncated bool) { return w.tr.events, w.tr.truncated }

// Stream returns the named random stream of this run (for example
// "workload"), independent of every other stream.
func (w *World) Stream(name string) *prng.Rand { return prng.Derive(w.cfg.Seed, name) }

// Nodes is the number of process slots.
func (w *World) Nodes() int { return len(w.nodes) }

// Process returns node id's current process, or nil while it is down.
func (w *World) Process(id int) simapi.Process { return w.node(id).proc }

// Up reports whether node id is running (not down, not paused).
func (w *World) Up(id int) bool { return w.node(id).status == statusUp }

// Down reports whether node id is not running at all (before its first
// boot or after a kill); a paused node is neither up nor down.
func (w *World) Down(id int) bool { return w.node(id).status == statusDown }

// Mem is node id's underlying in-memory disk, without faults, for checkers.
func (w *World) Mem(id int) *vfs.Mem { return w.node(id).mem }

// LocalNowNs reads node id's own clock.
func (w *World) LocalNowNs(id int) int64 { return w.node(id).clock.localNs(w.nowNs) }

// ClockSetBack reports whether node id's clock reads below what it showed
// before a jump moved it back: the timers it armed before the jump (its
// ticks among them) wait until the reading is there again.
func (w *World) ClockSetBack(id int) bool {
	c := &w.node(id).clock
	return c.localNs(w.nowNs) < c.peakLocalNs
}

func (w *World) node(id int) *node {
	if id < 0 || id >= len(w.nodes) {
		panic(fmt.Sprintf("sim: node %d out of range [0, %d)", id, len(w.nodes)))
	}
	return w.nodes[id]
}

// At schedules fn to run at virtual time atNs (not before now); detail is
// folded into the trace hash with the event.
func (w *World) At(atNs int64, detail uint64, fn func()) {
	if atNs < w.nowNs {
		panic(fmt.Sprintf("sim: At(%d ns) is before now (%d ns)", atNs, w.nowNs))
	}
	w.q.push(event{atNs: atNs, kind: EvCall, node: -1, peer: -1, id: detail, fn: fn})
}

func (w *World) trace(kind EventKind, nodeID, peer int32, detail uint64) {
	w.tr.add(TraceEvent{AtNs: w.nowNs, Kind: kind, Node: nodeID, Peer: peer, Detail: detail})
}

// InstantEventsMax bounds the events executed at one virtual instant.
// Overflow policy: panic, since a world whose clock cannot advance (a
// zero-delay timer re-arming itself, say) would otherwise spin forever.
const InstantEventsMax = 1 << 20

// Step executes the earliest event; it reports false when the queue is empty.
func (w *World) Step() bool {
	if w.q.len() == 0 {
		return false
	}
	ev := w.q.pop()
	if ev.atNs < w.nowNs {
		panic(fmt.Sprintf("sim: event %v at %d ns is before now %d ns", ev.kind, ev.atNs, w.nowNs))
	}
	if ev.atNs == w.nowNs {
		w.instantEvents++
		if w.instantEvents > InstantEventsMax {
			panic(fmt.Sprintf("sim: %d events at virtual time %d ns without time advancing (InstantEventsMax %d): a livelock, last %v on node %d",
				w.instantEvents, w.nowNs, InstantEventsMax, ev.kind, ev.node))
		}
	} else {
		w.instantEvents = 1
	}
	w.nowNs = ev.atNs
	w.busyNs = 0
	w.dispatch(ev)
	if w.observer != nil {
		w.observer(ev.atNs, ev.node)
	}
	return true
}

// SetObserver installs fn to be called after every executed event with the
// event's virtual time and node (-1 for none); nil removes it. An observer
// reads the world (leaders, process states) and must change nothing: it
// schedules no event, draws no randomness and sends nothing, so the trace
// and its hash are the same with or without it.
func (w *World) SetObserver(fn func(atNs int64, node int32)) { w.observer = fn }

// NextEventNs is the virtual time of the earliest scheduled event, and
// false when the queue is empty.
func (w *World) NextEventNs() (int64, bool) {
	if w.q.len() == 0 {
		return 0, false
	}
	return w.q.peekAtNs(), true
}

func (w *World) dispatch(ev event) {
	switch ev.kind {
	case EvBoot:
		w.boot(ev)
	case EvTimer:
		w.fireTimer(ev)
	case EvDeliver:
		w.deliver(ev)
	case EvFault:
		w.fireFault(int(ev.id))
	case EvResume:
		w.resume(int(ev.node), ev.gen)
	case EvCall:
		w.trace(EvCall, -1, -1, ev.id)
		ev.fn()
	default:
		panic(fmt.Sprintf("sim: cannot dispatch event kind %v", ev.kind))
	}
}

// RunFor executes every event due within the next durNs of virtual time and
// leaves the clock at the end of that window.
func (w *World) RunFor(durNs int64) {
	if durNs < 0 {
		panic(fmt.Sprintf("sim: RunFor(%d ns) with a negative duration", durNs))
	}
	end := w.nowNs + durNs
	for w.q.len() > 0 && w.q.peekAtNs() <= end {
		w.Step()
	}
	w.nowNs = end
}

// ErrNotLive marks a goal not reached within its budget after Heal.
var ErrNotLive = errors.New("not live after heal")

// RunUntil executes events until goal reports done or budgetNs of virtual
// time has passed; in the latter case it returns an error wrapping
// ErrNotLive with goal's description of what is still pending.
func (w *World) RunUntil(goal func() (done bool, pending string), budgetNs int64) error {
	end := w.nowNs + budgetNs
	done, pending := goal()
	for !done && w.q.len() > 0 && w.q.peekAtNs() <= end {
		w.Step()
		done, pending = goal()
	}
	if done {
		return nil
	}
	w.nowNs = max(w.nowNs, end)
	return fmt.Errorf("%w: %s (budget %d ns, now %d ns)", ErrNotLive, pending, budgetNs, w.nowNs)
}
