package cluster

import (
	"testing"
	"time"
)

// BenchmarkDefaultRun runs the default shape — 3 brokers, 1 stream × 4
// shards + the metadata group, every fault kind but corruption (swarm), a
// commit every 5 ms from the test loader — for 10 simulated seconds of
// faults plus heal and quiesce, and reports simulated seconds per wall
// second. (Wall time is read here, in a benchmark, never on the simulated
// path.)
func BenchmarkDefaultRun(b *testing.B) {
	const durNs = 10 * secondNs
	var simNs, wallNs int64
	for i := 0; i < b.N; i++ {
		start := time.Now()
		r := soak(uint64(i+1), durNs, soakKinds)
		wallNs += time.Since(start).Nanoseconds()
		if r.err != nil {
			b.Fatal(r.err)
		}
		simNs += r.simNs
	}
	b.ReportMetric(float64(simNs)/float64(wallNs), "sim-s/wall-s")
}
