package workload

import (
	"github.com/felixsim/felixsim/sim/prng"
	"github.com/felixsim/felixsim/sim/simapi"
)

// clientDraws are one workload client's random streams, one per purpose.
// A slot's operation is drawn from a generator of its own, keyed by the
// slot's number, so it is the same whatever the answers, retries and
// skipped slots before it drew; the step gaps are one stream, drawn once
// per step whatever the step did; a retry's coin has its own stream, so
// an answer lost to a fault moves no later operation. Shrinking relies
// on this: a candidate without some operations or faults keeps every
// other operation as it was, and the failure's timing with it.
type clientDraws struct {
	// slotsSeed keys each slot's generator (prng.KeyedSeed).
	slotsSeed uint64
	slotRand  prng.Rand
	gaps      *prng.Rand
	retries   *prng.Rand
	// arrivals draws the client's scope arrivals (arrivals.go).
	arrivals *prng.Rand
}

func newClientDraws(env simapi.Env) clientDraws {
	return clientDraws{slotsSeed: env.Stream("slots").Uint64(), gaps: env.Stream("gaps"), retries: env.Stream("retries"), arrivals: env.Stream("arrivals")}
}

// slot returns the generator of operation slot n, valid until the next call.
func (d *clientDraws) slot(n int) *prng.Rand {
	d.slotRand.Reseed(prng.KeyedSeed(d.slotsSeed, uint64(n), 0))
	return &d.slotRand
}
