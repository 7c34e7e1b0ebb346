package runner

import (
	"flag"
	"slices"
	"testing"
	"time"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/tla"
)

var (
	sweepSeeds      = flag.Int("seeds", 0, "TestSweep: how many seeds (1..N) to run twice each; 0 skips the sweep")
	sweepDurationNs = flag.Duration("sweep-duration", 20*time.Second, "TestSweep: simulated fault phase per seed")
)

// sweep runs seeds 1..n with every healable fault kind (even seeds with
// the clients' starts spread over the fault phase), each twice, and
// requires zero violations (liveness after heal included; the first run
// validates its abstract trace against the model, so TraceNotInModel
// too) and equal trace hashes (the second run does not trace: emission
// must not change the hash); it returns the total operations and
// simulated time, and logs the coverage counted over the first runs.
func sweep(t *testing.T, n int, durNs int64) (ops int, simNs int64) {
	t.Helper()
	idle := 0
	visited := map[tla.ProjectedState]bool{}
	total := coverage.New()
	for s := 1; s <= n; s++ {
		o := Options{Seed: uint64(s), DurationNs: durNs, FaultGapMeanNs: durNs / 16, Faults: AllFaults(), ValidateTrace: true}
		if s%2 == 0 {
			// Even seeds start their clients over the fault phase, so first
			// commits meet faults (model-state coverage).
			o.ClientStartSpreadNs = durNs
		}
		a, err := Run(o)
		if err != nil {
			t.Fatalf("seed %d: %v", s, err)
		}
		if !a.OK() {
			t.Fatalf("seed %d:\n%s", s, a.Summary())
		}
		if tv := a.TraceValidation; tv == nil || !tv.Valid || tv.Steps == 0 {
			t.Fatalf("seed %d: trace validation %+v", s, tv)
		}
		if a.ModelStates == nil {
			t.Fatalf("seed %d: no model-state coverage", s)
		}
		for _, p := range a.ModelStates.States {
			visited[p] = true
		}
		o.ValidateTrace = false
		b, err := Run(o)
		if err != nil {
			t.Fatalf("seed %d second run: %v", s, err)
		}
		if a.TraceHash != b.TraceHash || a.Ops != b.Ops {
			t.Fatalf("seed %d: second run differs: hash %016x vs %016x, ops %+v vs %+v", s, b.TraceHash, a.TraceHash, b.Ops, a.Ops)
		}
		if a.Ops.OK == 0 {
			// A plan can cut every client off from the brokers' majority for
			// the whole fault phase (a split drawn over all nodes): then no
			// operation may succeed, and liveness after heal is what the
			// run checks. A workload that does nothing on most seeds,
			// though, would make the sweep prove nothing.
			idle++
			t.Logf("seed %d: no operation succeeded during the fault phase (%d failed, %d unknown)", s, a.Ops.Failed, a.Ops.Unknown)
		}
		ops += a.Ops.Total
		simNs += a.SimNs
		total.Merge(a.Coverage)
		t.Logf("seed %d: %d faults, %d ops (%d ok, %d unknown), %d retries, %d brokers replaced, hash %016x",
			s, len(a.Plan.Faults), a.Ops.Total, a.Ops.OK, a.Ops.Unknown, a.Retries, len(a.Replaced), a.TraceHash)
	}
	for _, e := range total.Sorted() {
		t.Logf("coverage over %d seeds: %s %d", n, e.Point, e.Count)
	}
	if c := logModelStates(t, visited); c.Visited < sweepModelStatesMin {
		t.Fatalf("the sweep visited %d projected model states, fewer than %d: the traces (or their projection) no longer exercise the model", c.Visited, sweepModelStatesMin)
	}
	if idle*100 > n*sweepIdleSeedsPctMax {
		t.Fatalf("%d of %d seeds had no successful operation (more than %d%%): the workload is not exercising the cluster", idle, n, sweepIdleSeedsPctMax)
	}
	return ops, simNs
}

// sweepModelStatesMin is the fewest projected model states a sweep may
// visit (3 seeds of 5 s visit about 50, 12 seeds of 10 s about 90).
const sweepModelStatesMin = 30

// sweepIdleSeedsPctMax is the share of a sweep's seeds, in percent, that
// may see no successful operation before the sweep fails.
const sweepIdleSeedsPctMax = 2

// TestSeedsAllFaultsBounded is the bounded version of the 200-seed sweep
// that runs in every `go test`: a handful of seeds with every healable
// fault kind (swarm), each run twice — zero violations, every shard live
// after heal, identical trace hashes.
func TestSeedsAllFaultsBounded(t *testing.T) {
	n, dur := 12, int64(10e9)
	if testing.Short() {
		n, dur = 3, 5e9
	}
	sweep(t, n, dur)
}

// TestSweep is the full sweep, run on demand:
//
//	go test ./sim/runner -run TestSweep -seeds=200 -timeout 3h -v
func TestSweep(t *testing.T) {
	if *sweepSeeds == 0 {
		t.Skip("TestSweep runs only with -seeds=N")
	}
	start := time.Now() // wall time for the report only; the runs never see it
	ops, simNs := sweep(t, *sweepSeeds, sweepDurationNs.Nanoseconds())
	t.Logf("sweep: %d seeds x 2 runs, 0 violations, %d ops, %.0f simulated s per pass, %.0f wall s",
		*sweepSeeds, ops, float64(simNs)/1e9, time.Since(start).Seconds())
}

// logModelStates logs the sweep's projected model states against the
// mirror's reachable ones, and those it never visited.
func logModelStates(t *testing.T, set map[tla.ProjectedState]bool) tla.StateCoverage {
	t.Helper()
	visited := make([]tla.ProjectedState, 0, len(set))
	for p := range set {
		visited = append(visited, p)
	}
	slices.Sort(visited)
	c, err := ModelStateCoverage(visited, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("model states: %d of %d reachable projected states visited (%.1f%%), %d outside the reachable set %v",
		c.Visited, c.Reachable, 100*c.Fraction, len(c.Outside), c.Outside)
	if testing.Verbose() {
		t.Logf("never visited: %v", c.Missed)
	}
	return c
}
