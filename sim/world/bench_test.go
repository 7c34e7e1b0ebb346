package world_test

import (
	"testing"

	"github.com/felixsim/felixsim/sim/simapi"
	. "github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/sim/world/worldtest"
)

// BenchmarkWorldStep measures the world's dispatch loop around the queue:
// each op is one executed EvCall (trace hashing included) that schedules
// its successor.
func BenchmarkWorldStep(b *testing.B) {
	w, err := New(Config{Seed: 1, Nodes: []NodeSpec{{Name: "idle", New: func() simapi.Process { return worldtest.Idle{} }}}})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	w.RunFor(0)
	var fn func()
	fn = func() { w.At(w.NowNs()+1000, 1, fn) }
	for i := 0; i < 1024; i++ {
		w.At(int64(i), 1, fn)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.Step()
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkCounterSimSecond runs one simulated second of the three-node
// counter protocol (10 ms ticks, 1-2 ms links, no faults) per op, from a
// fresh world; it reports events executed per wall second.
func BenchmarkCounterSimSecond(b *testing.B) {
	b.ReportAllocs()
	var events uint64
	for i := 0; i < b.N; i++ {
		w, err := worldtest.CounterWorld(uint64(i), 3, false, &worldtest.CounterStats{})
		if err != nil {
			b.Fatal(err)
		}
		w.RunFor(1_000_000_000)
		events += w.EventsExecuted()
		w.Close()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
