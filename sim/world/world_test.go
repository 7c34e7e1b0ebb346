package world_test

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/simapi"
	. "github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/sim/world/worldtest"
)

// runCounter runs the counter protocol for one seed under a generated swarm
// plan, heals, and checks liveness; it returns the world (closed) for
// inspection of its hash and trace.
func runCounter(t testing.TB, seed uint64, faultPhaseNs int64, record bool) (*World, error) {
	stats := &worldtest.CounterStats{}
	w, err := worldtest.CounterWorld(seed, 3, record, stats)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	plan, err := faultplan.Generate(faultplan.Knobs{Seed: seed, Nodes: 3, DurationNs: faultPhaseNs, FaultGapMeanNs: faultPhaseNs / 8, Swarm: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := faultplan.ApplyPlan(w, plan); err != nil {
		t.Fatal(err)
	}
	w.RunFor(faultPhaseNs)
	w.Heal()
	return w, w.RunUntil(worldtest.CounterGoal(w, worldtest.MaxValue(w)+1), 20_000_000_000)
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
	w, _ := worldtest.ProbeWorld(t, 77, 2, LinkConfig{LatencyMinNs: 3, LatencyMaxNs: 9, LossPpm: 5}, func(c *Config) {
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

func TestConfigRefusals(t *testing.T) {
	ok := NodeSpec{Name: "n", New: func() simapi.Process { return nil }}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "0 nodes"},
		{Config{Nodes: []NodeSpec{{Name: "x"}}}, "New is nil"},
		{Config{Nodes: []NodeSpec{ok}, Link: LinkConfig{LatencyMinNs: 5, LatencyMaxNs: 1}}, "min <= max"},
		{Config{Nodes: []NodeSpec{ok}, Link: LinkConfig{LossPpm: 2e6}}, "[0, 1e6]"},
		{Config{Nodes: []NodeSpec{ok}, Links: []LinkOverride{{From: 0, To: 4}}}, "no such node"},
		{Config{Nodes: []NodeSpec{{Name: "d", New: ok.New, ClockDriftPpm: 2e6}}}, "drift"},
	} {
		if _, err := New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
}
