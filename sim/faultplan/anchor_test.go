package faultplan

import (
	"reflect"
	"testing"
)

// anchorKnobs are knobs of a plan of network and node faults with
// anchors every 2 s.
func anchorKnobs(ppm int64) Knobs {
	k := Knobs{Seed: 7, Nodes: 5, DurationNs: 20e9, FaultGapMeanNs: 1e9, Swarm: false,
		Kinds: []FaultKind{}, AnchorPpm: ppm}
	for _, name := range []string{"kill", "pause", "partition", "latency"} {
		for _, kind := range AllFaultKinds() {
			if kind.String() == name {
				k.Kinds = append(k.Kinds, kind)
			}
		}
	}
	for at := int64(1e9); at < k.DurationNs; at += 2e9 {
		k.AnchorsNs = append(k.AnchorsNs, at)
	}
	return k
}

// nearAnchor reports whether atNs lies within an anchored fault's reach
// of one of anchors (from AnchorLeadNs before to AnchorLagMaxNs after).
func nearAnchor(atNs int64, anchors []int64) bool {
	for _, a := range anchors {
		if atNs >= a-AnchorLeadNs && atNs <= a+AnchorLagMaxNs {
			return true
		}
	}
	return false
}

// TestAnchoringMovesFaultsToArrivals: with every drawn fault anchored,
// each fault of the plan that is not a partner (a restart, a resume, a
// heal) drawn before the last anchor strikes within reach of one, and an anchored span aimed at
// the leader is cut to the cap; a random plan of the same knobs without
// anchoring has most of its faults elsewhere. With no anchoring share
// the plan is the one drawn without anchors at all (unsteered runs keep
// their plans).
func TestAnchoringMovesFaultsToArrivals(t *testing.T) {
	k := anchorKnobs(1_000_000)
	k.AnchorRole, k.AnchorDurMaxNs = "leader", 50*msNs
	p, err := Generate(k)
	if err != nil {
		t.Fatal(err)
	}
	near, starts := 0, 0
	last := k.AnchorsNs[len(k.AnchorsNs)-1] + AnchorLagMaxNs
	for _, f := range p.Faults {
		if f.AtNs > last {
			continue // drawn past the last anchor: nothing to move it to
		}
		if f.Kind.String() == "kill" || f.Kind.String() == "pause" || f.Kind.String() == "partition" || f.Kind.String() == "latency" {
			starts++
			if nearAnchor(f.AtNs, k.AnchorsNs) {
				near++
			}
			if f.DurNs > k.AnchorDurMaxNs {
				t.Fatalf("anchored %s spans %d ns, over the cap %d", f, f.DurNs, k.AnchorDurMaxNs)
			}
			if (f.Kind.String() == "kill" || f.Kind.String() == "pause") && f.Role != "leader" {
				t.Fatalf("anchored %s is not aimed at the leader", f)
			}
		}
	}
	if starts == 0 || near != starts {
		t.Fatalf("%d of %d faults near an anchor, want all:\n%s", near, starts, p)
	}
	plain, err := Generate(anchorKnobs(0))
	if err != nil {
		t.Fatal(err)
	}
	none := anchorKnobs(0)
	none.AnchorsNs = nil
	unanchored, err := Generate(none)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plain, unanchored) {
		t.Fatalf("anchors with no anchoring share changed the plan:\n%s\nvs\n%s", plain, unanchored)
	}
	away := 0
	for _, f := range plain.Faults {
		if !nearAnchor(f.AtNs, k.AnchorsNs) {
			away++
		}
	}
	if away*2 < len(plain.Faults) {
		t.Fatalf("only %d of %d unanchored faults are away from the anchors: the check above proves nothing", away, len(plain.Faults))
	}
}

// TestSteerArmsNameKinds: every kind an arm's focus names is a fault kind
// (a misspelt name would silently focus on nothing), and every arm's name
// reads back.
func TestSteerArmsNameKinds(t *testing.T) {
	names := map[string]bool{}
	for _, k := range AllFaultKinds() {
		names[k.String()] = true
	}
	for _, a := range SteerArms() {
		for _, f := range a.Focus {
			if !names[f] {
				t.Fatalf("arm %s focuses on %q, no fault kind", a.Name, f)
			}
		}
		if got, err := SteerArmNamed(a.Name); err != nil || got.Name != a.Name {
			t.Fatalf("arm %s reads back as %+v, %v", a.Name, got, err)
		}
	}
	if _, err := SteerArmNamed("nonesuch"); err == nil {
		t.Fatal("an unknown arm was accepted")
	}
}
