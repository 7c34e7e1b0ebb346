package sim

import "testing"

// runCounter runs the counter protocol for one seed under a generated swarm
// plan, heals, and checks liveness; it returns the world (closed) for
// inspection of its hash and trace.
func runCounter(t testing.TB, seed uint64, faultPhaseNs int64, record bool) (*World, error) {
	stats := &counterStats{}
	w, err := counterWorld(seed, 3, record, stats)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	plan, err := Generate(Knobs{Seed: seed, Nodes: 3, DurationNs: faultPhaseNs, FaultGapMeanNs: faultPhaseNs / 8, Swarm: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.ApplyPlan(plan); err != nil {
		t.Fatal(err)
	}
	w.RunFor(faultPhaseNs)
	w.Heal()
	return w, w.RunUntil(counterGoal(w, maxValue(w)+1), 20_000_000_000)
}

func TestCounterLiveAfterHeal(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		w, err := runCounter(t, seed, 2_000_000_000, false)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if w.EventsExecuted() < 100 {
			t.Fatalf("seed %d executed only %d events", seed, w.EventsExecuted())
		}
	}
}
