package runner

import (
	"flag"
	"testing"
	"time"

	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/tla"
)

var (
	coverageSeeds      = flag.Int("coverage-seeds", 0, "TestModelStateCoverage: how many seeds (1..N); 0 skips it")
	coverageDurationNs = flag.Duration("coverage-duration", 20*time.Second, "TestModelStateCoverage: simulated fault phase per seed")
	coverageSpreadNs   = flag.Duration("coverage-spread", 0, "TestModelStateCoverage: the clients' start spread (Options.ClientStartSpreadNs)")
	coverageSteer      = flag.String("coverage-steer", faultplan.SteerNone, "TestModelStateCoverage: the steering arm every seed's plan is drawn with (felixsim run --steer)")
)

// TestModelStateCoverage measures, over seeds 1..N with every healable
// fault kind, which projected model states the brokers' traces visit
// against the mirror's reachable ones (docs/performance.md):
//
//	go test ./sim/runner -run TestModelStateCoverage -coverage-seeds=200 -v
//	go test ./sim/runner -run TestModelStateCoverage -coverage-seeds=200 -coverage-steer=arrivals -v
func TestModelStateCoverage(t *testing.T) {
	if *coverageSeeds == 0 {
		t.Skip("TestModelStateCoverage runs only with -coverage-seeds=N")
	}
	dur := coverageDurationNs.Nanoseconds()
	arm, err := faultplan.SteerArmNamed(*coverageSteer)
	if err != nil {
		t.Fatal(err)
	}
	visited := map[tla.ProjectedState]bool{}
	fractionSum := 0.0
	for s := 1; s <= *coverageSeeds; s++ {
		o := Options{Seed: uint64(s), DurationNs: dur, FaultGapMeanNs: dur / 16, Faults: AllFaults(), ValidateTrace: true,
			ClientStartSpreadNs: coverageSpreadNs.Nanoseconds(), Steer: arm}
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
	t.Logf("%d seeds, %v of faults, client start spread %v, steering arm %s: mean per-run fraction %.1f%%",
		*coverageSeeds, *coverageDurationNs, *coverageSpreadNs, arm.Name, 100*fractionSum/float64(*coverageSeeds))
	logModelStates(t, visited)
}

// TestSteeringArmsVisitMoreModelStates: the arrivals arm (new scopes
// whose first writes come throughout the fault phase, tla/README.md
// "Model coverage") visits far more projected model states than the
// unsteered plan of the same seeds, every one within the bound (no model
// gap) — 1.3x at least; measured: seeds 1..2
// of 10 s visit 75 unsteered, 116 with arrivals — and its plan, which
// records the arrivals as a workload parameter, replays to the same trace
// hash without the arm.
func TestSteeringArmsVisitMoreModelStates(t *testing.T) {
	if testing.Short() {
		t.Skip("four 10 s runs")
	}
	arrivals, err := faultplan.SteerArmNamed("arrivals")
	if err != nil {
		t.Fatal(err)
	}
	union := func(arm faultplan.SteerArm) (map[tla.ProjectedState]bool, *Result) {
		set := map[tla.ProjectedState]bool{}
		var last *Result
		for s := uint64(1); s <= 2; s++ {
			res, err := Run(Options{Seed: s, DurationNs: 10e9, FaultGapMeanNs: 10e9 / 16, Faults: AllFaults(), ValidateTrace: true, Steer: arm})
			if err != nil || !res.OK() || res.ModelStates == nil {
				t.Fatalf("seed %d arm %q: %v\n%v", s, arm.Name, err, res)
			}
			if gaps := res.ModelStates.Outside; len(gaps) > 0 {
				t.Errorf("seed %d arm %q visits states the bound does not hold (model gaps: broker steps MCBrokerShape leaves out): %v", s, arm.Name, gaps)
			}
			for _, p := range res.ModelStates.States {
				set[p] = true
			}
			last = res
		}
		return set, last
	}
	plain, _ := union(faultplan.SteerArm{})
	steered, res := union(arrivals)
	t.Logf("seeds 1..2 of 10 s: %d projected states unsteered, %d with arrivals", len(plain), len(steered))
	if 10*len(steered) < 13*len(plain) {
		t.Fatalf("arrivals visited %d projected states, unsteered %d: want at least 1.3x", len(steered), len(plain))
	}
	o, err := res.Options.WithPlan(res.Plan)
	if err != nil {
		t.Fatal(err)
	}
	o.Steer = faultplan.SteerArm{}
	again, err := Run(o)
	if err != nil || again.TraceHash != res.TraceHash {
		t.Fatalf("the steered plan replayed without its arm: %v, hash %016x, the run's %016x", err, again.TraceHash, res.TraceHash)
	}
}

// TestEveryGroupSizeReportsModelStates: runs of one and five brokers (and
// five with a broker replaced, whose group has four or five members after
// a change) report the model states they visited against each shape's
// bound, with no model gap; a state of each size is counted against that
// size's bound, not the three-member one.
func TestEveryGroupSizeReportsModelStates(t *testing.T) {
	if testing.Short() {
		t.Skip("three 10 s runs")
	}
	withOperator, err := ParseFaults("all,operator")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		brokers  int
		seed     uint64
		faults   FaultSet
		replaced bool
	}{{1, 1, AllFaults(), false}, {5, 1, AllFaults(), false}, {5, 3, withOperator, true}} {
		res, err := Run(Options{Seed: tc.seed, Brokers: tc.brokers, DurationNs: 10e9, Faults: tc.faults, ValidateTrace: true})
		if err != nil || !res.OK() || res.ModelStates == nil {
			t.Fatalf("%d brokers, seed %d: %v\n%v", tc.brokers, tc.seed, err, res)
		}
		c := res.ModelStates
		if len(c.Outside) > 0 {
			t.Errorf("%d brokers, seed %d: model gaps %v", tc.brokers, tc.seed, c.Outside)
		}
		sum := 0
		for _, s := range c.Shapes {
			if s.Members == tc.brokers && !s.Reconfigured && (s.Visited == 0 || s.Bound != tla.BoundInvariants) {
				t.Errorf("%d brokers, seed %d: shape %+v", tc.brokers, tc.seed, s)
			}
			if s.Reachable != (tla.Shape{Members: s.Members, Reconfigured: s.Reconfigured}).BoundSize() || s.Reachable == 0 {
				t.Errorf("%d brokers, seed %d: shape %+v counted against %d states", tc.brokers, tc.seed, s, s.Reachable)
			}
			sum += s.Reachable
		}
		if len(c.Shapes) == 0 || c.Shapes[0].Members > tc.brokers || sum != c.Reachable || c.Visited == 0 {
			t.Errorf("%d brokers, seed %d: coverage %+v", tc.brokers, tc.seed, c)
		}
		if tc.replaced && len(c.Shapes) < 2 {
			t.Errorf("%d brokers, seed %d with replacements: only shapes %+v", tc.brokers, tc.seed, c.Shapes)
		}
	}
}
