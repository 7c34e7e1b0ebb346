package faultplan

import (
	"errors"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/sim/world/worldtest"
)

// runCounterPlan runs the counter protocol under plan, heals, and waits for
// every node to pass the pre-heal maximum.
func runCounterPlan(t *testing.T, plan *Plan, stats *worldtest.CounterStats) (*world.World, error) {
	w, err := worldtest.CounterWorld(plan.Seed, plan.Nodes, false, stats)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if err := ApplyPlan(w, plan); err != nil {
		t.Fatal(err)
	}
	w.RunFor(plan.DurationNs)
	w.Heal()
	err = w.RunUntil(worldtest.CounterGoal(w, worldtest.MaxValue(w)+1), 5_000_000_000)
	w.Close()
	return w, err
}

// TestCounterUnderEveryFaultKind runs the protocol with one fault kind at a
// time (and its partners, for a kind drawn with one), checks that the kind
// was really applied, and that the protocol is
// live after the heal.
func TestCounterUnderEveryFaultKind(t *testing.T) {
	for _, kind := range AllFaultKinds() {
		for seed := uint64(1); seed <= 3; seed++ {
			plan, err := Generate(Knobs{Seed: seed, Nodes: 3, DurationNs: 1e9, FaultGapMeanNs: 1e8, Kinds: []FaultKind{kind}})
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Faults) == 0 {
				t.Fatalf("%s seed %d: no faults generated", kind, seed)
			}
			for _, f := range plan.Faults {
				if f.Kind != kind && faultKinds[kind].pair == nil {
					t.Fatalf("%s seed %d: plan holds %s", kind, seed, f)
				}
			}
			stats := &worldtest.CounterStats{}
			w, err := runCounterPlan(t, plan, stats)
			if err != nil {
				t.Fatalf("%s seed %d: %v\n%s", kind, seed, err, plan)
			}
			if stats.Received == 0 || w.EventsExecuted() < 100 {
				t.Fatalf("%s seed %d: protocol did not run (%d received)", kind, seed, stats.Received)
			}
		}
	}
}

// TestLivenessCheckHasTeeth plants a bug (a restarted node never ticks
// again, so it never re-broadcasts) — with node 0 killed, the counter can no
// longer advance and the liveness phase must fail with "not live after heal".
func TestLivenessCheckHasTeeth(t *testing.T) {
	plan := &Plan{Seed: 5, Nodes: 3, DurationNs: 1e9, Faults: []FaultEvent{{AtNs: 3e8, Kind: FaultKill, Node: 0, DurNs: 1e8}}}
	if _, err := runCounterPlan(t, plan, &worldtest.CounterStats{}); err != nil {
		t.Fatalf("healthy protocol failed: %v", err)
	}
	_, err := runCounterPlan(t, plan, &worldtest.CounterStats{StopAfterRestart: true})
	if !errors.Is(err, world.ErrNotLive) || !strings.Contains(err.Error(), "not live after heal: a node lags") {
		t.Fatalf("planted liveness bug not caught: %v", err)
	}
}

// TestCorruptionReachesChecksum: a corrupted sector on node 0's counter file
// is seen by its checksum at the next boot.
func TestCorruptionReachesChecksum(t *testing.T) {
	plan := &Plan{Seed: 1, Nodes: 3, DurationNs: 1e9, Faults: []FaultEvent{
		{AtNs: 3e8, Kind: FaultCorrupt, Node: 0},
		{AtNs: 3e8, Kind: FaultKill, Node: 0, DurNs: 1e7},
	}}
	stats := &worldtest.CounterStats{}
	if _, err := runCounterPlan(t, plan, stats); err != nil {
		t.Fatal(err)
	}
	if stats.CorruptSeen != 1 {
		t.Fatalf("checksum saw %d corruptions, want 1", stats.CorruptSeen)
	}
}

// TestReplayFromSavedPlan: a plan printed, parsed back and replayed gives
// the same trace hash as the original run.
func TestReplayFromSavedPlan(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		plan, err := Generate(Knobs{Seed: seed, Nodes: 3, DurationNs: 1e9, FaultGapMeanNs: 5e7, Swarm: true})
		if err != nil {
			t.Fatal(err)
		}
		a, errA := runCounterPlan(t, plan, &worldtest.CounterStats{})
		loaded, err := ParsePlan(plan.String())
		if err != nil {
			t.Fatal(err)
		}
		b, errB := runCounterPlan(t, loaded, &worldtest.CounterStats{})
		if a.TraceHash() != b.TraceHash() || (errA == nil) != (errB == nil) {
			t.Fatalf("seed %d: replay hash %016x vs original %016x", seed, b.TraceHash(), a.TraceHash())
		}
	}
}

func TestApplyPlanRefusals(t *testing.T) {
	w, _ := worldtest.ProbeWorld(t, 1, 2, worldtest.FixedLink, func(c *world.Config) { c.Nodes[1].FaultExempt = true })
	for _, tc := range []struct {
		plan *Plan
		want string
	}{
		{&Plan{Nodes: 3}, "world of 2"},
		{&Plan{Nodes: 2, Faults: []FaultEvent{{Kind: FaultKill, Node: 1}}}, "fault-exempt"},
		{&Plan{Nodes: 2, Faults: []FaultEvent{{Kind: FaultOneWay, Node: 0, Peer: 1}}}, "fault-exempt"},
	} {
		if err := ApplyPlan(w, tc.plan); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ApplyPlan(%s) = %v, want %q", tc.plan, err, tc.want)
		}
	}
	w.RunFor(10)
	if err := ApplyPlan(w, &Plan{Nodes: 2, Faults: []FaultEvent{{AtNs: 5, Kind: FaultHealNet}}}); err == nil || !strings.Contains(err.Error(), "now is") {
		t.Errorf("a fault in the past was accepted: %v", err)
	}
}

// TestRoleTargetedFaults: a fault aimed at a role hits whichever node holds
// it when the fault applies, and is skipped when nobody does.
func TestRoleTargetedFaults(t *testing.T) {
	holder, has := 2, true
	w, p := worldtest.ProbeWorld(t, 1, 3, worldtest.FixedLink, func(c *world.Config) {
		c.ResolveRole = func(role string) (int, bool) { return holder, has && role == "leader" }
	})
	plan := &Plan{Nodes: 3, Faults: []FaultEvent{
		{AtNs: 1_000_000, Kind: FaultIsolate, Role: "leader"},
		{AtNs: 10_000_000, Kind: FaultHealNet},
		{AtNs: 30_000_000, Kind: FaultKill, Role: "leader"},
	}}
	if err := ApplyPlan(w, plan); err != nil {
		t.Fatal(err)
	}
	w.RunFor(1_000_000)
	if got := p.Reach(); got != "1>0 0>1 " {
		t.Fatalf("after isolating the leader (node 2): %q", got)
	}
	w.RunFor(9_000_000) // reach ran 5 ms: now 15 ms, the network healed
	if got := p.Reach(); !strings.Contains(got, "2>0") {
		t.Fatalf("after the heal: %q", got)
	}
	has = false // now 20 ms; the kill at 30 ms finds no leader
	w.RunFor(20_000_000)
	for i := 0; i < 3; i++ {
		if !w.Up(i) {
			t.Fatalf("node %d was killed by a role fault with no holder", i)
		}
	}
	if _, err := ParsePlan(plan.String()); err != nil {
		t.Fatalf("role plan does not parse back: %v\n%s", err, plan)
	}
	w.Close() // one world at a time: the same probes without a resolver
	w2, _ := worldtest.ProbeWorld(t, 1, 3, worldtest.FixedLink, nil)
	if err := ApplyPlan(w2, plan); err == nil || !strings.Contains(err.Error(), "no ResolveRole") {
		t.Fatalf("a role plan was accepted without a resolver: %v", err)
	}
}
