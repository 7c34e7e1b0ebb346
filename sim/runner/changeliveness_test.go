package runner

import (
	"testing"

	"github.com/felixsim/felixsim/properties"
)

// TestMajorityHeld: what counts as a majority-connected group, on
// constructed links and configurations: a group keeps it with one voter
// cut off, loses it when the voters are split with no majority together,
// when a one-way cut breaks the only majority, when the client cannot
// reach the majority, and when a majority of the new configuration is not
// a majority of the old one a lagging broker still holds.
func TestMajorityHeld(t *testing.T) {
	type cut struct{ a, b uint64 }
	for _, tc := range []struct {
		name      string
		running   []uint64
		voterSets [][]uint64
		cuts      []cut    // both ways
		oneWay    []cut    // a -> b only
		unreached []uint64 // cut from the client
		want      bool
	}{
		{"all linked", []uint64{1, 2, 3}, [][]uint64{{1, 2, 3}}, nil, nil, nil, true},
		{"voter 3 cut off", []uint64{1, 2, 3}, [][]uint64{{1, 2, 3}}, []cut{{3, 1}, {3, 2}}, nil, nil, true},
		{"voter 3 down", []uint64{1, 2}, [][]uint64{{1, 2, 3}}, nil, nil, nil, true},
		{"two of three down", []uint64{1}, [][]uint64{{1, 2, 3}}, nil, nil, nil, false},
		{"every pair cut", []uint64{1, 2, 3}, [][]uint64{{1, 2, 3}}, []cut{{1, 2}, {2, 3}, {1, 3}}, nil, nil, false},
		{"one-way cut in the only majority", []uint64{1, 2}, [][]uint64{{1, 2, 3}}, nil, []cut{{1, 2}}, nil, false},
		{"client cannot reach one of the majority", []uint64{1, 2}, [][]uint64{{1, 2, 3}}, nil, nil, []uint64{2}, false},
		{"a replaced voter's new identity is a learner", []uint64{1, 2, 10}, [][]uint64{{1, 2}}, []cut{{10, 1}, {10, 2}}, nil, nil, true},
		{"old configuration still held", []uint64{1, 2, 10}, [][]uint64{{1, 2, 10}, {2, 10}}, []cut{{2, 10}}, nil, nil, false},
		{"no configuration known", []uint64{1, 2, 3}, nil, nil, nil, nil, false},
	} {
		blocked := map[cut]bool{}
		for _, c := range tc.cuts {
			blocked[c], blocked[cut{c.b, c.a}] = true, true
		}
		for _, c := range tc.oneWay {
			blocked[c] = true
		}
		linked := func(a, b uint64) bool { return !blocked[cut{a, b}] && !blocked[cut{b, a}] }
		reached := func(a uint64) bool {
			for _, u := range tc.unreached {
				if u == a {
					return false
				}
			}
			return true
		}
		if got := majorityHeld(tc.running, tc.voterSets, linked, reached); got != tc.want {
			t.Errorf("%s: majorityHeld %t, want %t", tc.name, got, tc.want)
		}
	}
}

// TestMembershipChecksJudge: clean runs whose plans change membership
// give both membership checks something to judge (no vacuous pass):
// promotions judged against the trace, and the change probe's writes
// acknowledged while the changes were in flight; none is a violation.
// Seed 28 is the one whose learner the broker used to promote one
// committed entry short (node.caughtUp allowed a lag of 64 entries behind
// the leader's applied index): it fails PromotedCaughtUp under that rule.
func TestMembershipChecksJudge(t *testing.T) {
	f, err := ParseFaults("membership,diskreplace")
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{1, 28} {
		res, err := Run(Options{Seed: seed, DurationNs: 10e9, Faults: f})
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK() {
			t.Fatalf("seed %d: clean run failed:\n%s", seed, res.Summary())
		}
		if p := res.Promotions; p == nil || p.Judged == 0 || p.Unjudged != 0 {
			t.Errorf("seed %d: promotions %+v: want some judged, none unjudged", seed, p)
		}
		if c := res.ChangeLiveness; c == nil || c.Writes == 0 || c.Acked == 0 || c.AckNsMax >= c.BudgetNs {
			t.Errorf("seed %d: change probe %+v: want writes acknowledged within the budget", seed, c)
		}
	}
}

// TestChangeBudgetOnlyJudges: the change-liveness budget decides the
// verdict, not the run: the writes-wait-for-learner seed that breaks the
// default budget passes a budget longer than its stall, with the same
// trace hash.
func TestChangeBudgetOnlyJudges(t *testing.T) {
	f, err := ParseFaults("diskreplace")
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseDefects("writes-wait-for-learner")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Seed: 1, DurationNs: 10e9, Faults: f, FaultGapMeanNs: 1e9, Defects: d}
	tight, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	o.ChangeLivenessBudgetNs = 30e9
	loose, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if !hasViolation(tight.Violations, properties.InvariantLivenessDuringChange) || hasViolation(loose.Violations, properties.InvariantLivenessDuringChange) {
		t.Fatalf("default budget: %v; 30 s budget: %v; want the stall caught by the first only", violationNames(tight), violationNames(loose))
	}
	if tight.TraceHash != loose.TraceHash {
		t.Fatalf("trace hash %016x with the default budget, %016x with 30 s", tight.TraceHash, loose.TraceHash)
	}
}
