package world

import (
	"fmt"

	"github.com/felixsim/felixsim/sim/prng"
)

// instantDraws is a random stream keyed by simulated time: every call to
// at hands out a fresh generator seeded from the stream's seed, the
// instant and the call's rank among the calls at that instant. A draw
// site (a link's next message, a node's next election timeout, a disk
// operation) thus gets the same numbers whenever it happens at the same
// instant, however many draws came before it. That is what lets a shrunk
// plan keep its timing: removing an operation or a fault removes its own
// messages and disk operations without moving any other message's delay,
// as a single sequential stream would, where every later draw shifts.
//
// Invariant: rank counts the calls at atNs minus one; atNs is -1 before
// the first call.
type instantDraws struct {
	seed uint64
	atNs int64
	rank uint64
	r    prng.Rand
}

// newInstantDraws returns the keyed stream called name of the run seed.
func newInstantDraws(seed uint64, name string) instantDraws {
	return instantDraws{seed: prng.StreamSeed(seed, name), atNs: -1}
}

// at returns the generator of the next draw site at simulated time atNs,
// the world's event time (never negative, never earlier than the last
// call's). The generator is reused: it is valid until the next call.
func (d *instantDraws) at(atNs int64) *prng.Rand {
	if atNs < d.atNs || atNs < 0 {
		panic(fmt.Sprintf("sim: keyed draw at %d ns after one at %d ns: simulated time went back", atNs, d.atNs))
	}
	if atNs == d.atNs {
		d.rank++
	} else {
		d.atNs, d.rank = atNs, 0
	}
	d.r.Reseed(prng.KeyedSeed(d.seed, uint64(atNs), d.rank))
	return &d.r
}
