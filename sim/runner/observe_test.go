package runner

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim/world"
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
	if got := world.TraceHashOf(b.Trace); got != b.TraceHash || uint64(len(b.Trace)) != b.Events || b.TraceTruncated {
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

// TestProgressKeepsHashAndCounts: a run with a progress callback hashes as
// one without; the callback sees simulated time rise one report interval
// at a time through the fault phase and beyond, operations and faults
// never fall, and the last report's counts are within the run's totals.
func TestProgressKeepsHashAndCounts(t *testing.T) {
	base := Options{Seed: 7, DurationNs: 3e9, FaultGapMeanNs: 5e8}
	a, err := Run(base)
	if err != nil {
		t.Fatal(err)
	}
	var seen []RunProgress
	o := base
	o.Progress = func(p RunProgress) { seen = append(seen, p) }
	b, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if a.TraceHash != b.TraceHash || a.Ops != b.Ops {
		t.Fatalf("progress changed the run: %016x %+v vs %016x %+v", a.TraceHash, a.Ops, b.TraceHash, b.Ops)
	}
	if len(seen) < 3 {
		t.Fatalf("%d progress reports over %d simulated ns", len(seen), b.SimNs)
	}
	for i, p := range seen {
		if p.DurationNs != 3e9 || p.SimNs < int64(i+1)*ProgressReportEveryNs || p.SimNs > b.SimNs {
			t.Fatalf("report %d: %+v", i, p)
		}
		if i > 0 && (p.Ops < seen[i-1].Ops || p.Faults < seen[i-1].Faults || p.SimNs <= seen[i-1].SimNs) {
			t.Fatalf("report %d went backwards: %+v after %+v", i, p, seen[i-1])
		}
	}
	if last := seen[len(seen)-1]; last.Ops > b.Ops.Total || last.Faults > len(b.Plan.Faults) || last.Faults == 0 {
		t.Fatalf("last report %+v; run: %d ops, %d faults", last, b.Ops.Total, len(b.Plan.Faults))
	}
}
