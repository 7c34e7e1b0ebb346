package runner

import (
	"fmt"
	"slices"
	"syscall"
	"testing"
)

// detectionCPUMedianSMax is issue 27's bound on bugs per CPU second: from
// a start seed, the median CPU a sweep spends until it reaches a seed that
// catches the planted defect. make detection flags a defect above it.
const detectionCPUMedianSMax = 2.0

// processCPUSeconds is this process's user and system CPU time so far
// (rusage): read in the test harness around a run, never on the
// simulated path.
func processCPUSeconds(t testing.TB) float64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// toCatch is, for a sweep that starts at each seed s of 1..n and runs
// seeds s, s+1, ... until one catches the defect, how many seeds and how
// much CPU that took (both in increasing order); starts with no catching
// seed from them to n are left out and counted in censored. firstCPUS is
// the CPU from seed 1 to the first catch.
type toCatch struct {
	seeds     []int
	cpuS      []float64
	censored  int
	firstCPUS float64
}

// toCatchFromEveryStart computes toCatch from caught[s] and cpuS[s]
// (s in 1..n: whether seed s caught the defect, and its run's CPU).
func toCatchFromEveryStart(caught []bool, cpuS []float64, n int) toCatch {
	var tc toCatch
	for s := 1; s <= n; s++ {
		spent, found := 0.0, false
		for u := s; u <= n && !found; u++ {
			spent += cpuS[u]
			if caught[u] {
				if s == 1 {
					tc.firstCPUS = spent
				}
				tc.seeds = append(tc.seeds, u-s+1)
				tc.cpuS = append(tc.cpuS, spent)
				found = true
			}
		}
		if !found {
			tc.censored++
		}
	}
	slices.Sort(tc.seeds)
	slices.Sort(tc.cpuS)
	return tc
}

// cpuSummary is toCatch's CPU as make detection prints it: median and max
// from every start, from seed 1, and a flag when the median is above
// detectionCPUMedianSMax.
func (tc toCatch) cpuSummary() string {
	if len(tc.cpuS) == 0 {
		return ""
	}
	med := tc.cpuS[len(tc.cpuS)/2]
	s := fmt.Sprintf("; CPU to a catch median %.2f s, max %.2f s, from seed 1 %.2f s", med, tc.cpuS[len(tc.cpuS)-1], tc.firstCPUS)
	if med > detectionCPUMedianSMax {
		s += fmt.Sprintf(" [CPU MEDIAN ABOVE %.0f s]", detectionCPUMedianSMax)
	}
	return s
}

// TestToCatchFromEveryStart: seeds and CPU to a catch from every start,
// against sums done by hand; a start after the last catch is left out.
func TestToCatchFromEveryStart(t *testing.T) {
	// seeds 1..5: caught on 2 and 4; CPU 0.5, 1, 0.25, 2, 4 s.
	caught := []bool{false, false, true, false, true, false}
	cpu := []float64{0, 0.5, 1, 0.25, 2, 4}
	tc := toCatchFromEveryStart(caught, cpu, 5)
	// start 1: seeds 1,2 (2 seeds, 1.5 s); 2: seed 2 (1, 1 s);
	// 3: seeds 3,4 (2, 2.25 s); 4: seed 4 (1, 2 s); 5: none.
	if !slices.Equal(tc.seeds, []int{1, 1, 2, 2}) || !slices.Equal(tc.cpuS, []float64{1, 1.5, 2, 2.25}) || tc.censored != 1 {
		t.Fatalf("got %+v", tc)
	}
	if got, want := tc.cpuSummary(), "; CPU to a catch median 2.00 s, max 2.25 s, from seed 1 1.50 s"; got != want {
		t.Fatalf("summary %q, want %q", got, want)
	}
	cpu[4] = 4 // starts 3 and 4 now need 4.25 and 4 s: the median, 4 s, is above the bound
	if got := toCatchFromEveryStart(caught, cpu, 5).cpuSummary(); got != "; CPU to a catch median 4.00 s, max 4.25 s, from seed 1 1.50 s [CPU MEDIAN ABOVE 2 s]" {
		t.Fatalf("summary %q does not flag a 4 s median", got)
	}
	if none := toCatchFromEveryStart(make([]bool, 6), cpu, 5); len(none.seeds) != 0 || none.censored != 5 || none.cpuSummary() != "" {
		t.Fatalf("never caught: %+v", none)
	}
}
