package faultplan

import (
	"strings"
	"testing"
)

// TestPlanLinesRangedWithTheirLine: issue 32's plan lines. A duration past
// --duration's 10000 h cap (which ran until killed) and a node count out
// of range are refused naming their line; a fault is refused naming its
// line and its place counted from 1 (the issue's "fault 8" counted from
// 0 and named no line); an empty plan asks for the current header.
func TestPlanLinesRangedWithTheirLine(t *testing.T) {
	good := "felixsim-plan v3\nseed 1\nnodes 3\nduration_ns 10\n"
	for _, tc := range []struct{ text, want string }{
		{"felixsim-plan v3\nseed 1\nnodes 3\nduration_ns 36000000000000001\n", "plan line 4: duration_ns 36000000000000001 refused: want 0..36000000000000000"},
		{"felixsim-plan v3\nseed 1\nnodes 3\nduration_ns 9223372036854775807\n", "plan line 4: duration_ns 9223372036854775807 refused"},
		{"felixsim-plan v3\nseed 1\nnodes 0\nduration_ns 10\n", "plan line 3: nodes 0 refused: want 1..64"},
		{"felixsim-plan v3\nseed 1\nnodes 99\nduration_ns 10\n", "plan line 3: nodes 99 refused"},
		{good + "fault at_ns=1 kind=pause node=1\n# a comment\nfault at_ns=2 kind=kill node=3\n", "plan line 7: fault 2 of 2: "},
		{good + "fault at_ns=5 kind=pause node=1\nfault at_ns=4 kind=pause node=1\n", "plan line 6: fault 2 of 2 at 4 ns refused: before the previous one"},
		{"", `empty, want header "felixsim-plan v3"`},
	} {
		_, err := ParsePlan(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want it to say %q", tc.text, err, tc.want)
		}
	}
	if p, err := ParsePlan("felixsim-plan v3\nseed 1\nnodes 3\nduration_ns 36000000000000000\n"); err != nil || p.DurationNs != DurationNsMax {
		t.Errorf("the cap itself: %v", err)
	}
	if err := (&Plan{Nodes: 3, DurationNs: DurationNsMax + 1}).Validate(); err == nil {
		t.Errorf("a plan given in code past the cap validated")
	}
}
