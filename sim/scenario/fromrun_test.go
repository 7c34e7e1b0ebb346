package scenario

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/runner"
)

// TestFromRunReproducesTheRunsFailure: a short failing run (seed 3 with
// commit-as-two-records) written as a scenario parses back from its text,
// replays to the same outputs, shows the run's invariant in its check,
// and shows none with the defect off.
func TestFromRunReproducesTheRunsFailure(t *testing.T) {
	res, err := runner.Run(runner.Options{Seed: 3, DurationNs: 300_000_000, Defects: node.Defects{CommitAsTwoRecords: true}, KeepHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	inv := res.Decisive()
	if inv != properties.InvariantNoPartialCommit {
		t.Fatalf("the run's deciding invariant is %q, want NoPartialCommit:\n%s", inv, res.Summary())
	}
	f, err := FromRun(res)
	if err != nil {
		t.Fatal(err)
	}
	outs := Run(f, Options{})
	if !Shows(f, outs, inv) {
		t.Fatalf("the scenario's check does not show %s:\n%s", inv, Format(f, outs))
	}
	text := Format(f, outs)
	back, err := Parse("from-run.txt", text)
	if err != nil {
		t.Fatalf("the written scenario does not parse: %v\n%s", err, text)
	}
	if d := Diff(back, Run(back, Options{})); d != "" {
		t.Fatalf("the written scenario does not replay to its own outputs:\n%s", d)
	}
	if off := Run(back, Options{DefectsOff: true}); Shows(back, off, inv) {
		t.Fatalf("with the defect off the scenario still shows %s:\n%s", inv, Format(back, off))
	}
	if !strings.Contains(text, "brokers 3 --seed 3 --defect commit-as-two-records") {
		t.Fatalf("the scenario does not configure the run's cluster:\n%s", text)
	}
}

// TestFromRunRefusesWhatAScenarioCannotSay: a value with a quote, which a
// scenario word cannot hold, is refused naming the operation; a fault on a
// node the scenario does not run becomes a comment, renumbered faults a
// fault command.
func TestFromRunRefusesWhatAScenarioCannotSay(t *testing.T) {
	base := func() *runner.Result {
		return &runner.Result{Options: runner.Options{Seed: 1, Brokers: 3, Clients: 2, DurationNs: 1_000_000}, Plan: &faultplan.Plan{},
			History: &properties.History{}}
	}
	res := base()
	res.History.Ops = []properties.HistoryOp{{ID: 7, Kind: properties.HistoryStateGet, Key: "it's", EntityKey: "e", InvokeNs: 1, CompleteNs: 2}}
	if _, err := FromRun(res); err == nil || !strings.Contains(err.Error(), "op 7") || !strings.Contains(err.Error(), "quote") {
		t.Fatalf("FromRun = %v, want a refusal naming op 7 and the quote", err)
	}
	res = base()
	res.Plan.Faults = []faultplan.FaultEvent{{AtNs: 5, Kind: faultplan.FaultKill, Node: 4, DurNs: 1}, {AtNs: 6, Kind: faultplan.FaultKill, Node: 5, DurNs: 1}}
	f, err := FromRun(res)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range f.Commands {
		texts = append(texts, strings.Join(c.Comments, "|")+c.Text)
	}
	all := strings.Join(texts, "\n")
	// Run client 1 is world slot 4, the scenario's slot 5; slot 5 in the
	// run is its liveness probe.
	if !strings.Contains(all, "fault kind=kill node=5 torn=false dur_ns=1") ||
		!strings.Contains(all, "# left out, it strikes the run's liveness probe or relay: kind=kill node=5 torn=false") {
		t.Fatalf("faults written as:\n%s", all)
	}
}
