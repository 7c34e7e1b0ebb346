package runner

import (
	"slices"
	"testing"
	"time"

	"github.com/felixsim/felixsim/properties"
)

// BenchmarkDefaultRun is `felixsim run` with default options (3 brokers,
// 1 stream x 4 shards + the metadata group, every healable fault kind in
// swarm, the default workload, 60 simulated seconds of faults, then heal,
// liveness, quiesce and every check), one seed per iteration. It reports
// simulated seconds per wall second. (The wall clock is read here, in a
// benchmark, never on the simulated path.)
func BenchmarkDefaultRun(b *testing.B) {
	var simNs, wallNs int64
	var ops int
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := Run(Options{Seed: uint64(i + 1)})
		wallNs += time.Since(start).Nanoseconds()
		if err != nil {
			b.Fatal(err)
		}
		if !res.OK() {
			b.Fatalf("seed %d: %v", i+1, res.Violations)
		}
		simNs += res.SimNs
		ops += res.Ops.Total
	}
	b.ReportMetric(float64(simNs)/float64(wallNs), "sim-s/wall-s")
	b.ReportMetric(float64(ops)/float64(b.N), "ops/run")
}

// BenchmarkLinearizableCheck times the per-scope linearizability check
// alone on the histories of seeds 1..b.N (default options, correct
// brokers): each iteration runs a seed, then checks its history against
// its replicas once more under the wall clock. It reports the median and
// maximum check time per history and the most model steps any scope took.
// Run it as `-benchtime 40x` for seeds 1..40.
func BenchmarkLinearizableCheck(b *testing.B) {
	var perRunNs []int64
	stepsMax, opsMax := 0, 0
	for i := 0; i < b.N; i++ {
		r := &run{opts: Options{Seed: uint64(i + 1)}.withDefaults()}
		if err := r.build(); err != nil {
			b.Fatal(err)
		}
		r.execute()
		if !r.res.OK() {
			r.c.Close()
			b.Fatalf("seed %d: %v", i+1, r.res.Violations)
		}
		logs := ReplicaLogsOf(r.c.Snapshot())
		ref := properties.LongestLogs(logs)
		start := time.Now()
		rep := properties.HistoryLinearizable(r.hist, &ref, 0)
		perRunNs = append(perRunNs, time.Since(start).Nanoseconds())
		r.c.Close()
		if rep.OK != len(rep.Scopes) {
			b.Fatalf("seed %d: %+v", i+1, rep)
		}
		for _, s := range rep.Scopes {
			stepsMax, opsMax = max(stepsMax, s.Steps), max(opsMax, s.Ops)
		}
	}
	slices.Sort(perRunNs)
	b.ReportMetric(float64(perRunNs[len(perRunNs)/2])/1e6, "ms-median/history")
	b.ReportMetric(float64(perRunNs[len(perRunNs)-1])/1e6, "ms-max/history")
	b.ReportMetric(float64(stepsMax), "steps-max/scope")
	b.ReportMetric(float64(opsMax), "ops-max/scope")
}
