package runner

import (
	"testing"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
)

// TestLinearizableCatchesPlantedDefects: the per-scope linearizability
// check reports the planted stale-read and ack-before-quorum defects
// within a few seeds of short runs (each found within seeds 1..3 at 10
// simulated seconds when this test was written).
func TestLinearizableCatchesPlantedDefects(t *testing.T) {
	for _, tc := range []struct {
		name    string
		defects node.Defects
	}{
		{"stale-read", node.Defects{StateReadWithoutReadIndex: true}},
		{"ack-before-quorum", node.Defects{AckBeforeQuorum: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const seedsMax = 8
			for seed := uint64(1); seed <= seedsMax; seed++ {
				res, err := Run(Options{Seed: seed, DurationNs: 10e9, Defects: tc.defects})
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range res.Violations {
					if v.Invariant == properties.InvariantLinearizable {
						if res.Linearizable.Illegal == 0 {
							t.Fatalf("seed %d: a Linearizable violation with no illegal scope counted: %+v", seed, res.Linearizable)
						}
						t.Logf("seed %d: %.400s", seed, v.Message)
						return
					}
				}
			}
			t.Fatalf("planted %s not reported as %s within seeds 1..%d", tc.name, properties.InvariantLinearizable, seedsMax)
		})
	}
}
