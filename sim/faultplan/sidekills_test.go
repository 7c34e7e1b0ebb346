package faultplan

import (
	"slices"
	"testing"
)

// TestSideKillsLeaveTheDrawnFaults: a side node (a relay) is killed apart
// from the drawn faults: the plan with it holds exactly the plan without
// it plus kills of the side node, none inside a progress window, each
// booting again; a plan whose kinds leave out kill holds none.
func TestSideKillsLeaveTheDrawnFaults(t *testing.T) {
	base := Knobs{Seed: 11, Nodes: 5, ExemptMask: 1<<3 | 1<<4, DurationNs: 40e9, FaultGapMeanNs: 5e8,
		Swarm: true, ProgressEveryNs: 10e9, ProgressWindowNs: 2e9}
	without, err := Generate(base)
	if err != nil {
		t.Fatal(err)
	}
	side := base
	side.SideNodes, side.SideKillGapMeanNs = []int{4}, 2e9
	with, err := Generate(side)
	if err != nil {
		t.Fatal(err)
	}
	var rest, kills []FaultEvent
	for _, f := range with.Faults {
		if f.Node == 4 && f.Kind == FaultKill {
			kills = append(kills, f)
			continue
		}
		rest = append(rest, f)
	}
	if !slices.Equal(rest, without.Faults) {
		t.Fatalf("side kills moved the drawn faults:\nwith:    %v\nwithout: %v", rest, without.Faults)
	}
	if len(kills) < 8 {
		t.Fatalf("%d side kills in 40 s at one per 2 s on average, want at least 8", len(kills))
	}
	for _, f := range kills {
		if f.DurNs < 1 || side.inProgressWindow(f.AtNs) || side.inProgressWindow(f.AtNs+f.DurNs) {
			t.Errorf("side kill %s: must boot again, outside every progress window", f)
		}
	}
	for _, f := range without.Faults {
		if f.Node == 4 && f.Kind.targetsNode() {
			t.Fatalf("drawn fault %s targets the exempt side node", f)
		}
	}
	noKill := side
	noKill.Kinds = []FaultKind{FaultPartition, FaultPause}
	p, err := Generate(noKill)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range p.Faults {
		if f.Kind == FaultKill {
			t.Fatalf("kinds without kill, yet %s", f)
		}
	}
}

// TestOneSideKind: exactly one kind is marked side, and it strikes a node
// for a span (the node boots again after dur_ns).
func TestOneSideKind(t *testing.T) {
	n := 0
	for k := range faultKinds {
		if faultKinds[k].side {
			n++
			if kind := FaultKind(k); !kind.targetsNode() || faultKinds[k].shape != ShapeSpan || faultKinds[k].draw == nil {
				t.Errorf("side kind %s must target a node for a drawn span", faultKinds[k].name)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d kinds marked side, want exactly 1", n)
	}
}
