package runner

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim"
)

// TestObserverKeepsHash: watching leadership, recording the trace and
// capturing the --until state leave the trace hash, the operation counts
// and the verdict as they are; the recorded trace hashes to the run's
// hash; the spans say something (a leader in every group) and never
// overlap within one broker and group.
func TestObserverKeepsHash(t *testing.T) {
	base := Options{Seed: 7, DurationNs: 3e9, FaultGapMeanNs: 5e8}
	a, err := Run(base)
	if err != nil {
		t.Fatal(err)
	}
	o := base
	o.Observe, o.RecordTrace, o.UntilNs, o.UntilScope = true, true, 2_500_000_000, "t0/orders/order-events/0"
	b, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if a.TraceHash != b.TraceHash || a.Ops != b.Ops || len(a.Violations) != len(b.Violations) {
		t.Fatalf("observing changed the run: %016x %+v vs %016x %+v", a.TraceHash, a.Ops, b.TraceHash, b.Ops)
	}
	if got := sim.TraceHashOf(b.Trace); got != b.TraceHash || uint64(len(b.Trace)) != b.Events || b.TraceTruncated {
		t.Fatalf("recorded trace: %d events hash %016x; run: %d events hash %016x", len(b.Trace), got, b.Events, b.TraceHash)
	}
	led := map[uint64]bool{}
	type key struct{ g, b uint64 }
	lastTo := map[key]int64{}
	for _, s := range b.Leadership {
		led[s.Group] = true
		if s.ToNs < s.FromNs || s.FromNs < lastTo[key{s.Group, s.Broker}] {
			t.Fatalf("span %+v overlaps or runs backwards", s)
		}
		lastTo[key{s.Group, s.Broker}] = s.ToNs
	}
	groups := 1 + int(b.Options.Streams)*int(b.Options.Shards) + LiveShards
	if len(led) != groups {
		t.Fatalf("leaders seen in %d of %d groups: %+v", len(led), groups, b.Leadership)
	}
	if !strings.Contains(b.StateAt, "cluster state at 2.500s") || !strings.Contains(b.StateAt, "leader broker") {
		t.Fatalf("state at 2.5 s:\n%s", b.StateAt)
	}
}
