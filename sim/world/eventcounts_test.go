package world_test

import (
	"testing"

	. "github.com/felixsim/felixsim/sim/world"
)

// TestEventCountsMatchTrace recounts a recorded trace by node and kind and
// requires World's counters to say the same, and their sum to be the
// events executed.
func TestEventCountsMatchTrace(t *testing.T) {
	w, err := runCounter(t, 7, 2_000_000_000, true)
	if err != nil {
		t.Fatal(err)
	}
	events, truncated := w.Trace()
	if truncated || len(events) == 0 {
		t.Fatalf("trace of %d events, truncated %v", len(events), truncated)
	}
	want := make([]EventKindCounts, w.Nodes()+1)
	for _, e := range events {
		want[e.Node+1][e.Kind]++
	}
	var total EventKindCounts
	for id := -1; id < w.Nodes(); id++ {
		if got := w.NodeEventsByKind(id); got != want[id+1] {
			t.Errorf("node %d: counted %v, the trace holds %v", id, got.Map(), want[id+1].Map())
		}
		total.Add(want[id+1])
	}
	if got := w.EventsByKind(); got != total {
		t.Errorf("by kind: counted %v, the trace holds %v", got.Map(), total.Map())
	}
	var sum uint64
	for _, n := range total {
		sum += n
	}
	if sum != w.EventsExecuted() || total[EvDeliver] == 0 || total[EvTimer] == 0 {
		t.Errorf("counts sum to %d (deliveries %d, timers %d), %d events executed", sum, total[EvDeliver], total[EvTimer], w.EventsExecuted())
	}
}
