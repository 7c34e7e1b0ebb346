package tla

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestVisitedStatesOfGoodTrace: goodTrace's projected states, worked out
// by hand from README's projection (per broker stored/committed/applied/
// written of scope acme's first writes, L the newest term's leader):
// the scope appears at the Request, b1 leads, stores the write, b2 stores
// it, b1 commits, applies and writes it, then b2 learns the mark and
// applies. b3 never stores it.
func TestVisitedStatesOfGoodTrace(t *testing.T) {
	v := NewTraceValidator(3)
	for i := range goodTrace() {
		s := goodTrace()[i]
		v.Step(&s)
	}
	var got []string
	for _, p := range v.VisitedStates() {
		got = append(got, p.String())
	}
	want := []string{
		"[0/0/0/0 0/0/0/0 0/0/0/0]",
		"[0/0/0/0 0/0/0/0 0/0/0/0L]",
		"[0/0/0/0 0/0/0/0 1/0/0/0L]",
		"[0/0/0/0 1/0/0/0 1/0/0/0L]",
		"[0/0/0/0 1/0/0/0 1/1/0/0L]",
		"[0/0/0/0 1/0/0/0 1/1/1/1L]",
		"[0/0/0/0 1/1/0/0 1/1/1/1L]",
		"[0/0/0/0 1/1/1/1 1/1/1/1L]",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("visited\n%v\nwant\n%v", got, want)
	}
	c := CompareStates(v.VisitedStates(), false)
	if c.Visited != len(want) || len(c.Outside) != 0 || c.Reachable != len(reachableBoundTable) {
		t.Errorf("goodTrace against the bound: %+v; want all %d visited states of the %d reachable", c, len(want), len(reachableBoundTable))
	}
}

// TestReachableProjected: the projection of the main config keeps the
// views' order (written <= applied <= committed <= stored, asserted by
// project) and holds the states a hand-run of the model reaches: the
// initial one, a leader alone, and every broker having applied both
// commits with one of them leading.
func TestReachableProjected(t *testing.T) {
	reach, err := ReachableProjected()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d projected states reachable in the main config", len(reach))
	has := map[string]bool{}
	for _, p := range reach {
		has[p.String()] = true
	}
	for _, w := range []string{"[0/0/0/0 0/0/0/0 0/0/0/0]", "[0/0/0/0 0/0/0/0 0/0/0/0L]", "[2/2/2/2 2/2/2/2 2/2/2/2L]", "[2/2/2/1 2/2/2/1 2/2/2/1L]"} {
		if !has[w] {
			t.Errorf("%s not reachable", w)
		}
	}
	// Two leaders at once are not a state of the model.
	if has["[0/0/0/0 0/0/0/0L 0/0/0/0L]"] {
		t.Errorf("two leaders reachable")
	}
}

// TestHoldsIndexMatchesContains: on an ascending slice holdsIndex finds
// exactly the indexes it holds, wherever they sit.
func TestHoldsIndexMatchesContains(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		steps := rapid.SliceOfN(rapid.Uint64Range(1, 4), 0, 40).Draw(t, "steps")
		var idx []uint64
		at := uint64(0)
		for _, d := range steps {
			at += d
			idx = append(idx, at)
		}
		for p := uint64(0); p <= at+2; p++ {
			if got, want := holdsIndex(idx, p), slices.Contains(idx, p); got != want {
				t.Fatalf("holdsIndex(%v, %d) = %t, want %t", idx, p, got, want)
			}
		}
	})
}
