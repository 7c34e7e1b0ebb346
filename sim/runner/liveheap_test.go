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
// at 60 simulated seconds and at the last reading, the growth per
// simulated second between them, and the most the end checks held (a
// reading as each part of the history is judged, its data still held);
// -liveheap.profile writes a heap profile
// at each reading, the last one staying (`go tool pprof -sample_index=inuse_space`). One
// iteration is one run: use -benchtime 1x.
//
//	go test ./sim/runner -run '^$' -bench LiveHeap -benchtime 1x -liveheap.duration 300s -v
func BenchmarkLiveHeap(b *testing.B) {
	var at60, last, checks float64
	var lastNs int64
	for i := 0; i < b.N; i++ {
		nextNs := int64(*liveHeapEvery)
		o := Options{Seed: 1, DurationNs: int64(*liveHeapDuration), ValidateTrace: true, Progress: func(p RunProgress) {
			if p.SimNs < nextNs || p.SimNs > p.DurationNs {
				return
			}
			nextNs += int64(*liveHeapEvery)
			mb := liveHeapMB()
			b.Logf("live heap at %3.0f simulated s: %6.1f MB", float64(p.SimNs)/1e9, mb)
			if p.SimNs <= 60e9 {
				at60 = mb
			}
			last, lastNs = mb, p.SimNs
			if *liveHeapProfile != "" {
				writeHeapProfile(b, *liveHeapProfile) // the last reading's stays
			}
		}}
		o.partJudged = func() { checks = max(checks, liveHeapMB()) }
		if _, err := Run(o); err != nil {
			b.Fatal(err)
		}
		b.Logf("live heap in the end checks, at most (a reading per part): %6.1f MB", checks)
	}
	b.ReportMetric(at60, "MB@60s")
	b.ReportMetric(last, "MB@end")
	b.ReportMetric(checks, "MB@checks")
	if lastNs > 60e9 {
		b.ReportMetric((last-at60)/(float64(lastNs)/1e9-60), "MB/sim-s")
	}
}

// liveHeapMB forces a collection and reads the live heap, in MB.
func liveHeapMB() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / 1e6
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
