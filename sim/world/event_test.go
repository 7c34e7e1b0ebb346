package world

import (
	"sort"
	"testing"

	"github.com/felixsim/felixsim/sim/prng"
	"pgregory.net/rapid"
)

// TestQueueMatchesDumbOrder checks the heap against a stable sort by time:
// events pop in (atNs, insertion order), across interleaved pushes and pops.
func TestQueueMatchesDumbOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q queue
		var dumb []event // kept sorted by (atNs, seq)
		var seq uint64
		for _, op := range rapid.SliceOfN(rapid.IntRange(0, 9), 1, 300).Draw(t, "ops") {
			if op < 3 && len(dumb) > 0 {
				got := q.pop()
				want := dumb[0]
				dumb = dumb[1:]
				if got.atNs != want.atNs || got.id != want.id {
					t.Fatalf("popped (%d, id %d), want (%d, id %d)", got.atNs, got.id, want.atNs, want.id)
				}
				continue
			}
			seq++
			ev := event{atNs: int64(rapid.IntRange(0, 20).Draw(t, "at")), kind: EvCall, id: seq}
			q.push(ev)
			ev.seq = seq
			dumb = append(dumb, ev)
			sort.SliceStable(dumb, func(i, j int) bool { return dumb[i].atNs < dumb[j].atNs })
		}
		if q.len() != len(dumb) {
			t.Fatalf("queue holds %d, dumb %d", q.len(), len(dumb))
		}
	})
}

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
