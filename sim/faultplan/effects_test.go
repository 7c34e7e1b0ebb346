package faultplan

import (
	"testing"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/sim/world/worldtest"
)

// effectWorld is a 3-probe world counting into a fresh *coverage.Counts.
func effectWorld(t *testing.T) (*world.World, *worldtest.Probes, *coverage.Counts) {
	c := coverage.New()
	w, p := worldtest.ProbeWorld(t, 1, 3, worldtest.FixedLink, func(cfg *world.Config) { cfg.Coverage = c })
	return w, p, c
}

// TestFaultEffectCountsWhenTheConditionBites: a cut counts as fired when
// applied but has an effect only once a message meets it, and then once
// per fault however many messages it drops; a pause has an effect only
// when a message reaches the paused node.
func TestFaultEffectCountsWhenTheConditionBites(t *testing.T) {
	w, p, c := effectWorld(t)
	plan := &Plan{Nodes: 3, Faults: []FaultEvent{
		{AtNs: 1_000_000, Kind: FaultPartition, Node: 0, Peer: 1},
		{AtNs: 1_000_000, Kind: FaultPause, Node: 2, DurNs: 50_000_000},
	}}
	if err := ApplyPlan(w, plan); err != nil {
		t.Fatal(err)
	}
	w.RunFor(2_000_000)
	if c.Get(coverage.FaultFired("partition")) != 1 || c.Get(coverage.FaultFired("pause")) != 1 {
		t.Fatalf("fired counts %v", c.Sorted())
	}
	if c.Get(coverage.FaultEffect("partition")) != 0 || c.Get(coverage.FaultEffect("pause")) != 0 {
		t.Fatalf("an effect counted before any message met a fault: %v", c.Sorted())
	}
	p.Envs[1].Send(2, worldtest.ProbeMsg(1)) // not across the cut
	w.RunFor(5_000_000)
	if c.Get(coverage.FaultEffect("partition")) != 0 || c.Get(coverage.FaultEffect("pause")) != 1 {
		t.Fatalf("after a message to the paused node: %v", c.Sorted())
	}
	for i := 0; i < 3; i++ {
		p.Envs[0].Send(1, worldtest.ProbeMsg(i))
	}
	w.RunFor(5_000_000)
	if got := c.Get(coverage.FaultEffect("partition")); got != 1 {
		t.Fatalf("three drops on one cut counted %d effects, want 1", got)
	}
	if e := w.FaultEffects(); len(e) != 2 || !e[0] || !e[1] {
		t.Fatalf("FaultEffects %v", e)
	}
}

// TestCorruptionEffectIsTheFlippedByteReadBack: a corrupted byte counts an
// effect only when a read covers it; truncating it away first forgets it.
func TestCorruptionEffectIsTheFlippedByteReadBack(t *testing.T) {
	for _, tc := range []struct {
		name       string
		truncate   bool
		wantEffect uint64
	}{{"read back", false, 1}, {"truncated first", true, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			w, p, c := effectWorld(t)
			fs := p.Envs[0].FS()
			f, err := fs.Create("data")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(make([]byte, 100)); err != nil {
				t.Fatal(err)
			}
			if err := ApplyPlan(w, &Plan{Nodes: 3, Faults: []FaultEvent{{AtNs: 1_000_000, Kind: FaultCorrupt, Node: 0}}}); err != nil {
				t.Fatal(err)
			}
			w.RunFor(2_000_000)
			if tc.truncate {
				if err := f.Truncate(0); err != nil {
					t.Fatal(err)
				}
				if _, err := f.Write(make([]byte, 100)); err != nil {
					t.Fatal(err)
				}
			}
			if c.Get(coverage.FaultEffect("corrupt")) != 0 {
				t.Fatal("corruption counted an effect before any read")
			}
			buf := make([]byte, 100)
			if _, err := f.ReadAt(buf, 0); err != nil {
				t.Fatal(err)
			}
			if got := c.Get(coverage.FaultEffect("corrupt")); got != tc.wantEffect {
				t.Fatalf("effects %d, want %d", got, tc.wantEffect)
			}
		})
	}
}

// TestCountingLeavesTheTraceAlone: the same plan with and without a
// *coverage.Counts gives the same trace hash.
func TestCountingLeavesTheTraceAlone(t *testing.T) {
	hash := func(c *coverage.Counts) uint64 {
		w, p := worldtest.ProbeWorld(t, 7, 3, worldtest.FixedLink, func(cfg *world.Config) { cfg.Coverage = c })
		plan, err := Generate(Knobs{Seed: 7, Nodes: 3, DurationNs: 1e9, FaultGapMeanNs: 2e7})
		if err != nil {
			t.Fatal(err)
		}
		if err := ApplyPlan(w, plan); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 100; i++ {
			w.RunFor(10_000_000)
			if p.Envs[i%3] != nil && w.Up(i%3) {
				p.Envs[i%3].Send((i+1)%3, worldtest.ProbeMsg(i))
			}
		}
		h := w.TraceHash()
		w.Close()
		return h
	}
	c := coverage.New()
	if a, b := hash(nil), hash(c); a != b {
		t.Fatalf("hash %016x without counting, %016x with", a, b)
	}
	if len(c.Sorted()) == 0 {
		t.Fatal("nothing counted")
	}
}
