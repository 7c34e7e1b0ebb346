package shrink

import (
	"errors"
	"testing"

	"pgregory.net/rapid"
)

// inOrder is a FirstFailing over a plain predicate, testing in order and
// counting the tests.
func inOrder(fails func([]int) bool, tests *int) FirstFailing {
	return func(cands [][]int) (int, error) {
		for i, c := range cands {
			*tests++
			if fails(c) {
				return i, nil
			}
		}
		return -1, nil
	}
}

func has(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestDDMinFindsAOneMinimalSubset: on random monotone predicates ("fails
// when the set holds every element of one of these groups") ddmin returns
// a failing subset from which removing any single element passes, checked
// by brute force apart from ddmin.
func TestDDMinFindsAOneMinimalSubset(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 120).Draw(t, "n")
		groups := rapid.SliceOfN(rapid.SliceOfN(rapid.IntRange(0, n-1), 1, 4), 1, 3).Draw(t, "groups")
		fails := func(s []int) bool {
			for _, g := range groups {
				all := true
				for _, v := range g {
					all = all && has(s, v)
				}
				if all {
					return true
				}
			}
			return false
		}
		tests := 0
		got, err := DDMin(n, inOrder(fails, &tests))
		if err != nil {
			t.Fatal(err)
		}
		if !fails(got) {
			t.Fatalf("ddmin returned %v, which passes (groups %v)", got, groups)
		}
		for i := range got {
			rest := append(append([]int(nil), got[:i]...), got[i+1:]...)
			if fails(rest) {
				t.Fatalf("ddmin returned %v; without %d it still fails: not 1-minimal (groups %v)", got, got[i], groups)
			}
		}
		if tests > 4*n*n+4 {
			t.Fatalf("ddmin took %d tests for %d elements", tests, n)
		}
	})
}

// TestDDMinNeedsFewTestsForAFewCulprits: three culprits among 1000
// elements are found with a number of tests near k·log n, not n.
func TestDDMinNeedsFewTestsForAFewCulprits(t *testing.T) {
	culprits := []int{17, 480, 901}
	fails := func(s []int) bool { return has(s, 17) && has(s, 480) && has(s, 901) }
	tests := 0
	got, err := DDMin(1000, inOrder(fails, &tests))
	if err != nil || len(got) != 3 || got[0] != culprits[0] || got[1] != culprits[1] || got[2] != culprits[2] {
		t.Fatalf("DDMin = %v, %v; want %v", got, err, culprits)
	}
	if testing.Verbose() {
		t.Logf("%d tests", tests)
	}
	if tests > 150 {
		t.Fatalf("%d tests for 3 culprits of 1000", tests)
	}
}

// TestDDMinStopsOnErrorWithTheBestSoFar: an error from the test ends the
// search and hands back a subset that did fail.
func TestDDMinStopsOnErrorWithTheBestSoFar(t *testing.T) {
	budget := errors.New("budget spent")
	calls := 0
	fails := func(s []int) bool { return has(s, 3) }
	got, err := DDMin(64, func(cands [][]int) (int, error) {
		calls++
		if calls > 3 {
			return -1, budget
		}
		for i, c := range cands {
			if fails(c) {
				return i, nil
			}
		}
		return -1, nil
	})
	if !errors.Is(err, budget) || !fails(got) || len(got) >= 64 {
		t.Fatalf("DDMin on error = %v, %v", got, err)
	}
}
