package sim

import (
	"os"
	"testing"
)

// planV1Fixture is a plan file written by the v1 printer (felixsim-plan v1,
// before fault kinds became one table): every fault kind, some aimed at a
// role ("leader" resolves to node 1, "nobody" to no node, so that fault is
// skipped).
const planV1Fixture = "testdata/plan_v1.txt"

// planV1TraceHash and planV1Events are what the fixture replayed to under
// the v1 code that wrote it; a later reader must replay it to the same.
const (
	planV1TraceHash = 0x72248e99331681e7
	planV1Events    = 1512
)

// fixtureWorld replays p on counter nodes whose "leader" role is node 1,
// through the fault phase and the heal until every node catches up.
func fixtureWorld(t *testing.T, p *Plan) *World {
	t.Helper()
	specs := make([]NodeSpec, p.Nodes)
	for i := range specs {
		specs[i] = NodeSpec{Name: "counter", New: newCounter(&counterStats{})}
	}
	w, err := New(Config{Seed: p.Seed, Nodes: specs, Link: LinkConfig{LatencyMinNs: 100_000, LatencyMaxNs: 2_000_000},
		ResolveRole: func(role string) (int, bool) { return 1, role == "leader" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if err := w.ApplyPlan(p); err != nil {
		t.Fatal(err)
	}
	w.RunFor(p.DurationNs)
	w.Heal()
	if err := w.RunUntil(counterGoal(w, maxValue(w)+1), 5_000_000_000); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestPlanV1FixtureReplays: the committed v1 plan parses, holds every
// fault kind, and replays to the trace the v1 code recorded.
func TestPlanV1FixtureReplays(t *testing.T) {
	text, err := os.ReadFile(planV1Fixture)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePlan(string(text))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[FaultKind]bool{}
	for _, f := range p.Faults {
		seen[f.Kind] = true
	}
	for _, k := range AllFaultKinds() {
		if !seen[k] {
			t.Fatalf("fixture lacks kind %s", k)
		}
	}
	w := fixtureWorld(t, p)
	if w.TraceHash() != planV1TraceHash || w.EventsExecuted() != planV1Events {
		t.Fatalf("v1 fixture replays to hash %#x after %d events, want %#x after %d", w.TraceHash(), w.EventsExecuted(), uint64(planV1TraceHash), planV1Events)
	}
}
