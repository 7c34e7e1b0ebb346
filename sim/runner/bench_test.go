package runner

import (
	"testing"
	"time"
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
