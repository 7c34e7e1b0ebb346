package simapi

import (
	"github.com/felixsim/felixsim/moment"
	"github.com/felixsim/felixsim/sim/prng"
	"github.com/felixsim/felixsim/vfs"
)

// Message is an opaque value carried by the simulated network.
type Message interface {
	// Digest returns a stable 64-bit summary of the message's content for the
	// run's trace hash; it must not be derived from fmt or protobuf text.
	Digest() uint64
}

// Cloner is implemented by mutable messages: a duplicated delivery hands the
// receiver Clone() instead of a second reference to the same value.
type Cloner interface {
	// Clone returns a deep copy of the message.
	Clone() Message
}

// Env is everything a process may touch. One Env belongs to one incarnation:
// after the process is killed, its old Env sends nothing and arms no timers.
type Env interface {
	// ID is this process's node index in the world, 0-based.
	ID() int
	// Nodes is how many processes the world holds (valid IDs are 0..Nodes-1).
	Nodes() int
	// Incarnation counts boots of this node: 1 at first boot, +1 per restart.
	Incarnation() uint64
	// NowNs reads this node's own clock, which may be skewed, drift and jump.
	NowNs() int64
	// AfterNs arms a timer that calls fn once this node's clock has advanced
	// by delayNs; it returns a non-zero timer ID for Cancel (0 if the
	// incarnation is dead). Timers die with the incarnation and wait while
	// the process is paused.
	AfterNs(delayNs int64, fn func()) uint64
	// Cancel disarms a timer; it reports whether the timer was still armed.
	Cancel(timerID uint64) bool
	// Send hands msg to the network for delivery to node to.
	Send(to int, msg Message)
	// FS is this node's durable filesystem (with the world's disk faults);
	// it survives restarts minus what a crash loses.
	FS() vfs.FS
	// Rand is this node's deterministic random stream.
	Rand() *prng.Rand
	// Stream returns a new generator for this node's random stream called
	// name: independent of Rand and of every other name, and the same in
	// every incarnation, so a process can give each purpose its own.
	Stream(name string) *prng.Rand
	// Trace folds a process-level observation into the run's trace hash.
	Trace(what string, digest uint64)
	// Moment tells the world this incarnation has just reached moment m.
	// A fault waiting for it may kill the process there: the call then
	// does not return (the process's handler unwinds, as at a crash at a
	// disk operation), and nothing after it runs.
	Moment(m moment.Moment)
}

// Process is a program the world runs. The world makes a fresh Process for
// every incarnation, so memory never survives a kill.
type Process interface {
	// Boot starts the incarnation; it is called once, before any Receive.
	Boot(env Env)
	// Receive handles one message delivered by the network.
	Receive(from int, msg Message)
}
