package runner

import (
	"testing"

	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/workload"
)

// TestPlanReplay: the plan a seed draws, printed and parsed back, replays
// to the same trace hash and operation counts; the plan carries the
// workload's shape, so a plan asking for 6 clients gets a world of 6.
func TestPlanReplay(t *testing.T) {
	a, err := Run(Options{Seed: 13, DurationNs: 4e9, FaultGapMeanNs: 4e8})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Plan.Faults) == 0 || len(a.Plan.Workload) == 0 {
		t.Fatalf("plan lacks faults or workload params:\n%s", a.Plan)
	}
	p, err := faultplan.ParsePlan(a.Plan.String())
	if err != nil {
		t.Fatal(err)
	}
	o, err := Options{FaultGapMeanNs: 4e8}.WithPlan(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if a.TraceHash != b.TraceHash || a.Ops != b.Ops || !b.OK() {
		t.Fatalf("replay differs: %016x vs %016x, %+v vs %+v\n%s", b.TraceHash, a.TraceHash, b.Ops, a.Ops, b.Summary())
	}

	p6 := &faultplan.Plan{Seed: 2, Nodes: 3 + 6 + 2, DurationNs: 2e9, Workload: []faultplan.Param{{Name: workload.ParamClients, Value: 6}}}
	o6, err := Options{}.WithPlan(p6)
	if err != nil {
		t.Fatal(err)
	}
	if o6.Clients != 6 {
		t.Fatalf("plan with 6 clients gave options with %d", o6.Clients)
	}
	r6, err := Run(o6)
	if err != nil || !r6.OK() {
		t.Fatalf("6-client plan: %v %v", err, r6.Violations)
	}
	if _, err := (Options{}).WithPlan(&faultplan.Plan{Seed: 2, Nodes: 8, Workload: []faultplan.Param{{Name: workload.ParamClients, Value: 6}}}); err == nil {
		t.Fatal("plan whose node count disagrees with its clients accepted")
	}
}
