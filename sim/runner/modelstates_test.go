package runner

import (
	"flag"
	"testing"
	"time"

	"github.com/felixsim/felixsim/tla"
)

var (
	coverageSeeds      = flag.Int("coverage-seeds", 0, "TestModelStateCoverage: how many seeds (1..N); 0 skips it")
	coverageDurationNs = flag.Duration("coverage-duration", 20*time.Second, "TestModelStateCoverage: simulated fault phase per seed")
	coverageSpreadNs   = flag.Duration("coverage-spread", 0, "TestModelStateCoverage: the clients' start spread (Options.ClientStartSpreadNs)")
)

// TestModelStateCoverage measures, over seeds 1..N with every healable
// fault kind, which projected model states the brokers' traces visit
// against the mirror's reachable ones (docs/performance.md):
//
//	go test ./sim/runner -run TestModelStateCoverage -coverage-seeds=100 -coverage-spread=10s -timeout 3h -v
func TestModelStateCoverage(t *testing.T) {
	if *coverageSeeds == 0 {
		t.Skip("TestModelStateCoverage runs only with -coverage-seeds=N")
	}
	dur := coverageDurationNs.Nanoseconds()
	visited := map[tla.ProjectedState]bool{}
	fractionSum := 0.0
	for s := 1; s <= *coverageSeeds; s++ {
		o := Options{Seed: uint64(s), DurationNs: dur, FaultGapMeanNs: dur / 16, Faults: AllFaults(), ValidateTrace: true,
			ClientStartSpreadNs: coverageSpreadNs.Nanoseconds()}
		res, err := Run(o)
		if err != nil {
			t.Fatalf("seed %d: %v", s, err)
		}
		if !res.OK() || res.ModelStates == nil {
			t.Fatalf("seed %d:\n%s", s, res.Summary())
		}
		fractionSum += res.ModelStates.Fraction
		for _, p := range res.ModelStates.States {
			visited[p] = true
		}
	}
	t.Logf("%d seeds, %v of faults, client start spread %v: mean per-run fraction %.1f%%",
		*coverageSeeds, *coverageDurationNs, *coverageSpreadNs, 100*fractionSum/float64(*coverageSeeds))
	logModelStates(t, visited)
}
