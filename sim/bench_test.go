package sim

import (
	"github.com/felixsim/felixsim/sim/simapi"
	"testing"

	"github.com/felixsim/felixsim/sim/prng"
)

// BenchmarkScheduler measures the bare event queue: one op is one event
// popped and one pushed, with 1024 events pending and deadlines drawn from a
// seeded stream.
func BenchmarkScheduler(b *testing.B) {
	var q queue
	r := prng.New(1)
	for i := 0; i < 1024; i++ {
		q.push(event{atNs: int64(r.Uint64n(1_000_000)), kind: EvCall})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev := q.pop()
		ev.atNs += int64(r.Uint64n(1_000_000))
		q.push(ev)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkWorldStep measures the world's dispatch loop around the queue:
// each op is one executed EvCall (trace hashing included) that schedules
// its successor.
func BenchmarkWorldStep(b *testing.B) {
	w, err := New(Config{Seed: 1, Nodes: []NodeSpec{{Name: "idle", New: func() simapi.Process { return idle{} }}}})
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

type idle struct{}

func (idle) Boot(simapi.Env)             {}
func (idle) Receive(int, simapi.Message) {}

// BenchmarkCounterSimSecond runs one simulated second of the three-node
// counter protocol (10 ms ticks, 1-2 ms links, no faults) per op, from a
// fresh world; it reports events executed per wall second.
func BenchmarkCounterSimSecond(b *testing.B) {
	b.ReportAllocs()
	var events uint64
	for i := 0; i < b.N; i++ {
		w, err := counterWorld(uint64(i), 3, false, &counterStats{})
		if err != nil {
			b.Fatal(err)
		}
		w.RunFor(1_000_000_000)
		events += w.EventsExecuted()
		w.Close()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
