package runner

import (
	"flag"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
)

var (
	liveHeapDuration = flag.Duration("liveheap.duration", 300e9, "BenchmarkLiveHeap: the run's simulated fault phase")
	liveHeapEvery    = flag.Duration("liveheap.every", 30e9, "BenchmarkLiveHeap: simulated time between two readings")
	liveHeapProfile  = flag.String("liveheap.profile", "", "BenchmarkLiveHeap: write a heap profile at the last reading to this file")
)

// BenchmarkLiveHeap measures what a default run holds as it goes: seed 1
// for -liveheap.duration of faults (default 300 s), its trace validated
// as `felixsim run` validates it, and every
// -liveheap.every of simulated time a forced collection then the live
// heap (runtime.MemStats.HeapAlloc), read from the run's Progress callback
// (which must not touch the run, and does not). It reports the live heap
// at 60 simulated seconds and at the last reading, and the growth per
// simulated second between them; -liveheap.profile writes a heap profile
// at each reading, the last one staying (`go tool pprof -sample_index=inuse_space`). One
// iteration is one run: use -benchtime 1x.
//
//	go test ./sim/runner -run '^$' -bench LiveHeap -benchtime 1x -liveheap.duration 300s -v
func BenchmarkLiveHeap(b *testing.B) {
	var at60, last float64
	var lastNs int64
	for i := 0; i < b.N; i++ {
		nextNs := int64(*liveHeapEvery)
		_, err := Run(Options{Seed: 1, DurationNs: int64(*liveHeapDuration), ValidateTrace: true, Progress: func(p RunProgress) {
			if p.SimNs < nextNs || p.SimNs > p.DurationNs {
				return
			}
			nextNs += int64(*liveHeapEvery)
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			mb := float64(ms.HeapAlloc) / 1e6
			b.Logf("live heap at %3.0f simulated s: %6.1f MB", float64(p.SimNs)/1e9, mb)
			if p.SimNs <= 60e9 {
				at60 = mb
			}
			last, lastNs = mb, p.SimNs
			if *liveHeapProfile != "" {
				writeHeapProfile(b, *liveHeapProfile) // the last reading's stays
			}
		}})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(at60, "MB@60s")
	b.ReportMetric(last, "MB@end")
	if lastNs > 60e9 {
		b.ReportMetric((last-at60)/(float64(lastNs)/1e9-60), "MB/sim-s")
	}
}

// writeHeapProfile writes the heap profile (live objects as of the last
// collection) to path.
func writeHeapProfile(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}
