package runner

import (
	"testing"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/sim/faultplan"
)

// operatorSweepFaults is the fault mix of the operator actions' bounded
// sweep: every operator action, with kills, partitions and pauses.
const operatorSweepFaults = "operator,kill,partition,pause"

// TestOperatorActionsBounded: seeds 1..n whose plans draw the operator
// actions (stream delete and create, rolling-upgrade steps, finalize)
// among kills, partitions and pauses pass every check (IncarnationsApart
// included), and over the range every operator action fired and had its
// effect and every stream and fleet coverage point was reached (a
// consumer group of the administered stream fetching across a re-creation
// among them): the actions are drawn, carried out and judged, not
// skipped.
func TestOperatorActionsBounded(t *testing.T) {
	n := 8
	if testing.Short() {
		n = 3
	}
	cov := boundedCoverage(t, operatorSweepFaults, n, func(s uint64, res *Result) {
		t.Logf("seed %d: %d stream changes, %d ops ok", s, len(res.StreamChanges), res.Ops.OK)
	})
	if testing.Short() {
		return
	}
	want := []coverage.Point{coverage.StreamDeleted, coverage.StreamRecreated, coverage.StreamRequestRefusedDeleted, coverage.StreamReadNewGeneration,
		coverage.StreamGroupAcrossRecreate, coverage.FleetUpgradeStep, coverage.FleetFinalized}
	for _, k := range OperatorActions().Kinds() {
		want = append(want, coverage.FaultFired(k.String()), coverage.FaultEffect(k.String()))
	}
	for _, p := range want {
		if cov.Get(p) == 0 {
			t.Fatalf("seeds 1..%d never reached %s (counts %v)", n, p, cov.Map())
		}
	}
}

// TestFaultSetNamesOperatorActions: "all" holds no operator action,
// "operator" holds only them, and both print back as they parse.
func TestFaultSetNamesOperatorActions(t *testing.T) {
	for _, s := range []string{"all", "operator", "all,operator", "kill,streamcreate"} {
		f, err := ParseFaults(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.String(); got != s {
			t.Fatalf("ParseFaults(%q).String() = %q", s, got)
		}
	}
	all, _ := ParseFaults("all")
	for _, k := range all.Kinds() {
		if k.Operator() {
			t.Fatalf("all holds operator action %s", k)
		}
	}
	op, _ := ParseFaults("operator")
	if len(op.Kinds()) == 0 {
		t.Fatal("operator names no kind")
	}
	for _, k := range op.Kinds() {
		if !k.Operator() {
			t.Fatalf("operator holds fault %s", k)
		}
	}
}

// TestStreamChangesPastTheListCap: seed 93's net-storm plan asks more
// stream changes than the run lists (cluster.StreamChangesMax); a write
// acknowledged after an unlisted re-creation was once reported as
// accepted by the deleted stream. The run says where its list stops and
// passes.
func TestStreamChangesPastTheListCap(t *testing.T) {
	if testing.Short() {
		t.Skip("a 20 s run")
	}
	arm, err := faultplan.SteerArmNamed("net-storm")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(Options{Seed: 93, DurationNs: 20e9, Faults: faultsOf(t, "all,operator"), Steer: arm, ValidateTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.StreamChangesUnlistedFromNs == 0 {
		t.Fatalf("%d changes listed and none past the cap: the plan no longer reaches it", len(res.StreamChanges))
	}
	if !res.OK() {
		t.Fatalf("seed 93 net-storm:\n%s", res.Summary())
	}
}
