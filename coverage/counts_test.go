package coverage

import (
	"encoding/json"
	"testing"
)

func TestNilCountsIgnoreAdds(t *testing.T) {
	var c *Counts
	c.Add(RaftFailover)
	if c.Get(RaftFailover) != 0 || c.Sorted() != nil {
		t.Fatalf("a nil *Counts counted")
	}
}

func TestCountsAddMergeAndSort(t *testing.T) {
	a := New()
	a.Add("b.two")
	a.Add("a.one")
	a.AddN("b.two", 4)
	b := New()
	b.Add("a.one")
	b.Merge(a)
	got, _ := json.Marshal(b.Map())
	if want := `{"a.one":2,"b.two":5}`; string(got) != want {
		t.Fatalf("merged counts %s, want %s", got, want)
	}
	es := b.Sorted()
	if len(es) != 2 || es[0].Point != "a.one" || es[1].Count != 5 {
		t.Fatalf("sorted %+v", es)
	}
	back, err := FromMap(b.Map())
	if err != nil || back.Get("b.two") != 5 || back.Get("a.one") != 2 {
		t.Fatalf("FromMap: %v %+v", err, back.Sorted())
	}
	if _, err := FromMap(map[string]uint64{"": 1}); err == nil {
		t.Fatalf("FromMap accepted an empty name")
	}
}

func TestMissingNamesUnreachedSometimesPoints(t *testing.T) {
	c := New()
	if m := c.Missing(); len(m) == 0 || m[0] != RaftFailover {
		t.Fatalf("empty counts miss %v, want raft.failover among them", m)
	}
	c.Add(RaftFailover)
	for _, p := range c.Missing() {
		if p == RaftFailover {
			t.Fatalf("a reached point is reported missing")
		}
	}
}

func TestFaultPointNames(t *testing.T) {
	if FaultFired("kill") != "fault.kill.fired" || FaultEffect("corrupt") != "fault.corrupt.effect" {
		t.Fatalf("fault point names %q %q", FaultFired("kill"), FaultEffect("corrupt"))
	}
}
