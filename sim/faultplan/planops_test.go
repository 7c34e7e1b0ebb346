package faultplan

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestClientOpsKeepsAsASet: the ranges OpRangesOf builds keep exactly the
// slots given, judged against a plain set (the dumb version), and list
// them back in order.
func TestClientOpsKeepsAsASet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		slots := rapid.SliceOf(rapid.IntRange(0, 300)).Draw(t, "slots")
		want := map[int]bool{}
		for _, s := range slots {
			want[s] = true
		}
		c := ClientOps{Client: 0, Keep: OpRangesOf(slots)}
		p := &Plan{Nodes: 1, Ops: []ClientOps{c}}
		if err := p.Validate(); err != nil {
			t.Fatalf("OpRangesOf(%v) = %v is not in its one spelling: %v", slots, c.Keep, err)
		}
		for s := -1; s <= 301; s++ {
			if c.Keeps(s) != want[s] || p.KeepsOp(0, s) != want[s] {
				t.Fatalf("Keeps(%d) = %v, the set says %v (ranges %v)", s, c.Keeps(s), want[s], c.Keep)
			}
		}
		if c.Count() != len(want) || len(c.Slots()) != len(want) {
			t.Fatalf("Count %d, Slots %v, want %d slots", c.Count(), c.Slots(), len(want))
		}
		for i, s := range c.Slots() {
			if !want[s] || (i > 0 && s <= c.Slots()[i-1]) {
				t.Fatalf("Slots() = %v: not the set %v in order", c.Slots(), slots)
			}
		}
	})
}

// TestPlanWithoutOpsKeepsEverything: an older plan (no ops lines) keeps
// every operation of every client, and prints no ops line.
func TestPlanWithoutOpsKeepsEverything(t *testing.T) {
	p, err := ParsePlan("felixsim-plan v2\nseed 1\nnodes 8\nduration_ns 10\n")
	if err != nil {
		t.Fatal(err)
	}
	for c := 0; c < 8; c++ {
		for s := 0; s < 100; s++ {
			if !p.KeepsOp(c, s) {
				t.Fatalf("plan without ops lines skips client %d slot %d", c, s)
			}
		}
	}
	if strings.Contains(p.String(), "ops ") {
		t.Fatalf("plan without ops prints an ops line:\n%s", p)
	}
	q, err := ParsePlan(p.String() + "ops client=3 keep=none\nops client=5 keep=2-4,9\n")
	if err != nil {
		t.Fatal(err)
	}
	if q.KeepsOp(3, 0) || !q.KeepsOp(5, 3) || q.KeepsOp(5, 5) || !q.KeepsOp(5, 9) || !q.KeepsOp(4, 7) {
		t.Fatalf("ops lines read wrongly: %+v", q.Ops)
	}
}
