package tla

import (
	"slices"
	"testing"
)

// TestBrokerReachableProjection: the mirror with the broker's Crash
// (keeping the commit mark and applied state) reaches a state the model
// cannot — a stale leader of an older term holds nothing while the two
// others know the first write committed, the newer leader having
// restarted with its mark (the model's restart forgets it: 1/0/0/0) —
// and loses one the model reaches only by a restart that forgot both
// writes' commit and application on a broker that stores them, beside two
// that applied both. The figures in tla/README.md ("Model coverage") are
// these sets' sizes.
func TestBrokerReachableProjection(t *testing.T) {
	if testing.Short() {
		t.Skip("explores the main config twice")
	}
	model, err := ReachableProjected()
	if err != nil {
		t.Fatal(err)
	}
	broker, err := ReachableProjectedBroker()
	if err != nil {
		t.Fatal(err)
	}
	has := func(set []ProjectedState, s string) bool {
		return slices.ContainsFunc(set, func(p ProjectedState) bool { return p.String() == s })
	}
	const kept, forgot = "[0/0/0/0L 1/1/0/0 1/1/0/0]", "[2/0/0/0 2/2/2/2 2/2/2/2L]"
	if !has(broker, kept) || has(model, kept) {
		t.Fatalf("%s: in the broker's set %v, in the model's %v; want only the broker's", kept, has(broker, kept), has(model, kept))
	}
	if has(broker, forgot) || !has(model, forgot) {
		t.Fatalf("%s: in the broker's set %v, in the model's %v; want only the model's", forgot, has(broker, forgot), has(model, forgot))
	}
	both := 0
	for _, p := range broker {
		if _, found := slices.BinarySearch(model, p); found {
			both++
		}
	}
	var inBoth []ProjectedState
	for _, p := range broker {
		if _, found := slices.BinarySearch(model, p); found {
			inBoth = append(inBoth, p)
		}
	}
	bound := OneApplyingAtATime(inBoth)
	if len(model) != 718 || len(broker) != 760 || both != 681 || len(bound) != 443 {
		t.Fatalf("model %d, broker %d, both %d, one applying at a time %d projected states; tla/README.md says 718, 760, 681 and 443",
			len(model), len(broker), both, len(bound))
	}
	const twoBehind = "[1/1/0/0 1/1/0/0 1/1/1/1L]"
	if !has(model, twoBehind) || has(OneApplyingAtATime(model), twoBehind) {
		t.Fatalf("%s (two brokers behind their marks) in the model %v, kept by OneApplyingAtATime %v", twoBehind, has(model, twoBehind), has(OneApplyingAtATime(model), twoBehind))
	}
}
