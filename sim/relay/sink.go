package relay

import (
	"fmt"
	"slices"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
)

// SinkDeliveriesMax caps the deliveries a Sink records; one more panics: a
// run that relays that many events is misconfigured, and a check over a
// cut record would judge a lie.
const SinkDeliveriesMax = 1 << 22

// SinkHeldMax is how many deliveries a Sink holds in memory; past it the
// held ones go to its spill file (sinkspill.go), so a long run's record
// costs disk, not memory (a 20 s run never spills).
const SinkHeldMax = 1 << 13

// Sink is the simulated downstream system: it accepts every event the
// relay hands it, in the order handed, and forgets nothing when the relay
// crashes. It keeps its newest deliveries in memory and the rest in a
// scratch file; the outbox checks read them back a few scopes at a time
// (ScopeDeliveries).
//
// Invariant: the spill file holds deliveries 0..spill.n()-1, held the rest
// in order; len(held) < heldMax unless the spill failed (its error then
// stands and every read reports it).
type Sink struct {
	// scopes are the relay's scopes; a delivery's tag is its scope's index.
	scopes  []felix.Scope
	held    []properties.OutboxDelivery
	heldMax int
	spill   sinkSpill
	// reached is each scope's highest delivered offset plus one (looked
	// up, never ranged over); redeliveries counts deliveries below it.
	reached      map[felix.Scope]uint64
	redeliveries uint64
}

// newSink is the sink of a relay of scopes.
func newSink(scopes []felix.Scope) *Sink {
	return &Sink{scopes: scopes, heldMax: SinkHeldMax, reached: map[felix.Scope]uint64{}}
}

// deliver records one event.
func (s *Sink) deliver(scope felix.Scope, e *felix.Entry, incarnation uint64) {
	n := s.Len()
	if n >= SinkDeliveriesMax {
		panic(fmt.Sprintf("relay: sink holds %d deliveries, the cap", n))
	}
	s.held = append(s.held, properties.OutboxDeliveryOf(uint64(n), scope, e, incarnation))
	if len(s.held) >= s.heldMax && s.spill.write(s.held, s.tagOf) == nil {
		s.held = s.held[:0]
	}
	if e.Offset < s.reached[scope] {
		s.redeliveries++
		return
	}
	s.reached[scope] = e.Offset + 1
}

// tagOf is scope's tag: its index among the relay's scopes.
func (s *Sink) tagOf(scope felix.Scope) int {
	i := slices.Index(s.scopes, scope)
	if i < 0 {
		panic(fmt.Sprintf("relay: sink got a delivery of %s, which the relay does not serve", scope))
	}
	return i
}

// Redeliveries counts deliveries of an offset at or below one the sink
// had already received in that scope: the relay's at-least-once at work.
func (s *Sink) Redeliveries() uint64 { return s.redeliveries }

// Deliveries returns every delivery so far, in the order the sink got
// them, the spilled ones read back; the caller owns the copy. It fails
// only when the spill file could not be written or read back.
func (s *Sink) Deliveries() ([]properties.OutboxDelivery, error) {
	return s.read(func(int) bool { return true })
}

// ScopeDeliveries returns the deliveries of scopes so far, in the order
// the sink got them (every spilled line is checked, only theirs kept).
func (s *Sink) ScopeDeliveries(scopes []felix.Scope) ([]properties.OutboxDelivery, error) {
	return s.read(func(tag int) bool { return slices.Contains(scopes, s.scopes[tag]) })
}

// read returns the deliveries whose scope tags take wants.
func (s *Sink) read(take func(tag int) bool) ([]properties.OutboxDelivery, error) {
	out, err := s.spill.read(s.scopes, take)
	if err != nil {
		return nil, err
	}
	for i := range s.held {
		if take(s.tagOf(s.held[i].Scope)) {
			out = append(out, s.held[i])
		}
	}
	return out, nil
}

// Len is how many deliveries the sink has received.
func (s *Sink) Len() int { return s.spill.n() + len(s.held) }

// Close releases the sink's spill file.
func (s *Sink) Close() error { return s.spill.close() }
