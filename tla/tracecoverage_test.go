package tla

import (
	"maps"
	"testing"

	"github.com/felixsim/felixsim/modeltrace"
)

// TestTraceCoverageOfGoodTrace: goodTrace's actions, counted by hand from
// the steps (README's names): three Restarts as Crash, b1's own vote as
// Timeout and b2's as Vote, b1's two new entries as Propose and b2's
// copy as Replicate, b1's mark by quorum and b2's learned one, each
// broker's empty entry and written commit_if.
func TestTraceCoverageOfGoodTrace(t *testing.T) {
	v := NewTraceValidator(3)
	if got := v.Coverage().Actions; got != nil {
		t.Fatalf("no step validated, but the coverage is %v (want nil)", got)
	}
	modeltrace.Replay(goodTrace(), v)
	want := map[string]int{"Crash": 3, "Timeout": 1, "Vote": 1, "Promote": 1, "Persist:Propose": 2, "Propose": 1,
		"Persist:Replicate": 1, "Commit:AdvanceCommit": 1, "Commit:Replicate": 1, "Apply:none": 2, "Apply:written": 2, "Answer": 1}
	if got := v.Coverage().Actions; !maps.Equal(got, want) {
		t.Fatalf("coverage %v, want %v", got, want)
	}
}

// TestActionCountsNamesEveryStep: counting by slot gives the names the
// rule states (kind:action for Persist and Commit, action:outcome for
// Apply, else the action), for the actions dispatch gives and for any
// other, merged when two differ only where the rule ignores it.
func TestActionCountsNamesEveryStep(t *testing.T) {
	var c actionCounts
	steps := []struct {
		kind    modeltrace.Kind
		outcome modeltrace.Outcome
		action  string
	}{
		{modeltrace.Persist, 0, "Propose"}, {modeltrace.Persist, modeltrace.OutcomeWritten, "Propose"},
		{modeltrace.Commit, 0, "Replicate"}, {modeltrace.Apply, modeltrace.OutcomeRefused, "Apply"},
		{modeltrace.Apply, modeltrace.OutcomeError, "Apply"}, {modeltrace.Apply, modeltrace.Outcome(9), "Apply"},
		{modeltrace.ApplyConf, modeltrace.OutcomeWritten, "Apply"}, {modeltrace.ProposeConf, 0, "Reconfigure"},
		{modeltrace.Restart, 0, "Vote"}, {modeltrace.Vote, 0, "Vote"}, {modeltrace.Persist, 0, "Odd"},
	}
	for _, st := range steps {
		c.note(&modeltrace.Step{Kind: st.kind, Outcome: st.outcome}, st.action)
	}
	want := map[string]int{"Persist:Propose": 2, "Commit:Replicate": 1, "Apply:refused": 1, "Apply:error": 1, "Apply:Outcome(9)": 1,
		"Apply": 1, "Reconfigure": 1, "Vote": 2, "Persist:Odd": 1}
	if got := c.coverage().Actions; !maps.Equal(got, want) {
		t.Fatalf("coverage %v, want %v", got, want)
	}
}
