package relay

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
)

// SinkDeliveriesMax caps the deliveries a Sink records; one more panics: a
// run that relays that many events is misconfigured, and a check over a
// cut record would judge a lie.
const SinkDeliveriesMax = 1 << 22

// Sink is the simulated downstream system: it accepts every event the
// relay hands it, in the order handed, and forgets nothing when the relay
// crashes.
type Sink struct {
	deliveries []properties.OutboxDelivery
	// reached is each scope's highest delivered offset plus one (looked
	// up, never ranged over); redeliveries counts deliveries below it.
	reached      map[felix.Scope]uint64
	redeliveries uint64
}

// deliver records one event.
func (s *Sink) deliver(scope felix.Scope, e *felix.Entry, incarnation uint64) {
	if len(s.deliveries) >= SinkDeliveriesMax {
		panic(fmt.Sprintf("relay: sink holds %d deliveries, the cap", len(s.deliveries)))
	}
	s.deliveries = append(s.deliveries, properties.OutboxDeliveryOf(scope, e, incarnation))
	if s.reached == nil {
		s.reached = map[felix.Scope]uint64{}
	}
	if e.Offset < s.reached[scope] {
		s.redeliveries++
		return
	}
	s.reached[scope] = e.Offset + 1
}

// Redeliveries counts deliveries of an offset at or below one the sink
// had already received in that scope: the relay's at-least-once at work.
func (s *Sink) Redeliveries() uint64 { return s.redeliveries }

// Deliveries returns every delivery so far, in the order the sink got
// them; the caller owns the copy.
func (s *Sink) Deliveries() []properties.OutboxDelivery {
	return append([]properties.OutboxDelivery(nil), s.deliveries...)
}

// Len is how many deliveries the sink has received.
func (s *Sink) Len() int { return len(s.deliveries) }
