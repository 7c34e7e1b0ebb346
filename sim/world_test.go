package sim

import (
	"strings"
	"testing"
)

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

func TestDescribeNamesEveryOption(t *testing.T) {
	w, _ := probeWorld(t, 77, 2, LinkConfig{LatencyMinNs: 3, LatencyMaxNs: 9, LossPpm: 5}, func(c *Config) {
		c.Nodes[1].FaultExempt = true
		c.Nodes[1].ClockDriftPpm = -40
		c.Links = []LinkOverride{{From: 0, To: 1, Link: LinkConfig{DuplicatePpm: 8}}}
	})
	got := w.Describe()
	for _, want := range []string{"seed 77\n", "nodes 2\n", "latency_ns=[3,9]", "loss_ppm=5", "link 0->1 ", "dup_ppm=8", "node 1 name=probe exempt=true clock_skew_ns=0 clock_drift_ppm=-40"} {
		if !strings.Contains(got, want) {
			t.Fatalf("Describe lacks %q:\n%s", want, got)
		}
	}
}
