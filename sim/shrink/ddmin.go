package shrink

// FirstFailing tests candidates, each a subset of the elements (their
// indices, ascending), and returns the index of the first candidate in
// order that still fails, or -1 when none does. It may test several at
// once and stop at the first batch with a failing one, but its answer
// must be the one testing them in order would give, so the search does
// not depend on how many run in parallel. An error (the budget spent, a
// worker that cannot run) ends the search.
type FirstFailing func(cands [][]int) (int, error)

// DDMin is delta debugging over the elements 0..n-1, all of which
// together fail: it removes chunks of halving size while the rest still
// fails (a chunk that cannot go is stepped over; after one that could,
// the next chunk is tried at the same place), then passes over single
// elements until a pass removes none. It returns a subset that still
// fails and is 1-minimal (removing any one element makes it pass),
// provided the test is deterministic. On an error from first it returns
// the smallest failing subset found so far with the error.
//
// The caller tests the empty set itself: DDMin assumes it passes.
func DDMin(n int, first FirstFailing) ([]int, error) {
	cur := make([]int, n)
	for i := range cur {
		cur[i] = i
	}
	chunk := max(n/2, 1)
	for len(cur) > 1 {
		removed := false
		for i := 0; i < len(cur); {
			// Every chunk from i on, removed alone, in order.
			var cands [][]int
			for j := i; j < len(cur); j += chunk {
				cands = append(cands, without(cur, j, min(j+chunk, len(cur))))
			}
			k, err := first(cands)
			if err != nil {
				return cur, err
			}
			if k < 0 {
				break
			}
			cur, i, removed = cands[k], i+k*chunk, true
		}
		if chunk == 1 && !removed {
			return cur, nil // no single element can go: 1-minimal
		}
		chunk = max(chunk/2, 1)
	}
	return cur, nil
}

// without is s less its elements [lo, hi).
func without(s []int, lo, hi int) []int {
	out := make([]int, 0, len(s)-(hi-lo))
	out = append(out, s[:lo]...)
	return append(out, s[hi:]...)
}
