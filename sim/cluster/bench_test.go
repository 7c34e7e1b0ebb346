package cluster

import (
	"syscall"
	"testing"
	"time"
)

// cpuNs is this process's user+system CPU time (benchmarks only: the
// machine is shared, so CPU time is steadier than wall time).
func cpuNs() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// benchSeeds are the seeds one benchmark op runs, so every op does the
// same work whatever b.N is.
var benchSeeds = []uint64{1, 2, 3}

// BenchmarkDefaultRun runs the default shape — 3 brokers, 1 stream × 4
// shards + the metadata group, every fault kind but corruption (swarm),
// the soak loader (a write every 5 ms, each acknowledged commit read back,
// consumer-group fetch/ack) — for 10 simulated seconds of faults plus heal
// and quiesce, once per seed of benchSeeds, and reports simulated seconds per wall second and per CPU
// second. (Wall and CPU time are read here, in a benchmark, never on the
// simulated path.)
func BenchmarkDefaultRun(b *testing.B) {
	const durNs = 10 * secondNs
	var simNs, wallNs, cpuUsedNs int64
	for i := 0; i < b.N; i++ {
		for _, seed := range benchSeeds {
			start, cpu0 := time.Now(), cpuNs()
			r := soak(seed, durNs, soakKinds)
			wallNs += time.Since(start).Nanoseconds()
			cpuUsedNs += cpuNs() - cpu0
			if r.err != nil {
				b.Fatal(r.err)
			}
			simNs += r.simNs
		}
	}
	b.ReportMetric(float64(simNs)/float64(wallNs), "sim-s/wall-s")
	if cpuUsedNs > 0 {
		b.ReportMetric(float64(simNs)/float64(cpuUsedNs), "sim-s/cpu-s")
	}
}
