package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/runner"
)

// wantInvariants is every invariant `felixsim run --list-invariants` must
// print, in order, with its family, stated here from the design (the six
// TLA+ invariants, the history checks, the stored raft logs' and routing
// checks, the trace's validation against the model, then what the runner
// reports about progress and panics), not read back from the registry.
var wantInvariants = []struct{ name, family string }{
	{"NoPartialCommit", "safety"},
	{"VersionIsOffset", "safety"},
	{"StateMatchesLog", "safety"},
	{"CommittedNeverLost", "safety"},
	{"CommittedPrefixAgreement", "safety"},
	{"ConditionalWrites", "safety"},
	{"RefusedBeforeSending", "safety"},
	{"FailedWriteLeftNoTrace", "safety"},
	{"LandsAtMostOncePerDelivery", "safety"},
	{"AnswersHonest", "safety"},
	{"LandingMatchesRequest", "safety"},
	{"LinearizableRead", "safety"},
	{"MonotonicRead", "safety"},
	{"LinearizableWrite", "safety"},
	{"Linearizable", "safety"},
	{"RaftLogTermsMonotonic", "safety"},
	{"RaftLogsAgree", "safety"},
	{"HardStateMonotonic", "safety"},
	{"RoutedToOwningShard", "safety"},
	{"OutboxDelivered", "safety"},
	{"OutboxInOrder", "safety"},
	{"OutboxNothingUncommitted", "safety"},
	{"OutboxOffsetMatchesState", "safety"},
	{"IncarnationsApart", "safety"},
	{"EphemeralRefusesCommits", "safety"},
	{"EphemeralLiveDelivery", "safety"},
	{"TraceNotInModel", "safety"},
	{"GroupDeliversEveryRecord", "safety"},
	{"GroupAckedNotRedelivered", "safety"},
	{"GroupPositionMonotonic", "safety"},
	{"GroupPositionInSnapshot", "safety"},
	{"GroupStateAgreement", "safety"},
	{"StoreMatchesMemory", "safety"},
	{"Liveness", "liveness"},
	{"Quiesce", "liveness"},
	{"Crash", "crash"},
	{"Evidence", "crash"},
	{"GroupRecordsRetained", "safety"},
	{"OutboxKeptUntilRelayed", "safety"},
	{"PromotedCaughtUp", "safety"},
	{"LivenessDuringChange", "liveness"},
	{"GroupLeaseHonored", "safety"},
	{"FailedOnlyWhenCertain", "safety"},
	{"OutboxFromStart", "safety"},
	{"WriteInItsGeneration", "safety"},
	{"EphemeralLiveComplete", "safety"},
	{"StoreKeepsAcknowledged", "safety"},
	{"StoreRoundsWhole", "safety"},
}

// TestListInvariants: --list-invariants exits 0 and prints exactly the
// expected names and families, each with the registry's statement and a
// line naming its checks.
func TestListInvariants(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runCommand([]string{"--list-invariants"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2*len(wantInvariants) {
		t.Fatalf("%d lines, want %d (two per invariant):\n%s", len(lines), 2*len(wantInvariants), out.String())
	}
	for i, want := range wantInvariants {
		head, checks := lines[2*i], lines[2*i+1]
		f := strings.Fields(head)
		if len(f) < 3 || f[0] != want.name || f[1] != want.family {
			t.Errorf("line %d = %q, want %s %s and a statement", 2*i+1, head, want.name, want.family)
			continue
		}
		inv, err := properties.LookupInvariant(properties.InvariantName(want.name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(head, " "+inv.Statement) || !strings.HasPrefix(strings.TrimSpace(checks), "checked by "+inv.Checks[0]) {
			t.Errorf("%s: statement or checks missing:\n%s\n%s", want.name, head, checks)
		}
	}
	if n := len(properties.Invariants()); n != len(wantInvariants) {
		t.Fatalf("registry holds %d invariants, this test expects %d", n, len(wantInvariants))
	}
}

// TestExitCodeFollowsFamily: a failed run's exit code is its most
// serious family's: safety 1 (with or without liveness failures or a
// crash after it), then liveness 4, then crash-only 3; a pass is 0. The
// codes are written out here, not taken from the constants.
func TestExitCodeFollowsFamily(t *testing.T) {
	for _, c := range []struct {
		names []properties.InvariantName
		want  int
	}{
		{nil, 0},
		{[]properties.InvariantName{properties.InvariantLiveness}, 4},
		{[]properties.InvariantName{properties.InvariantLiveness, properties.InvariantQuiesce}, 4},
		{[]properties.InvariantName{properties.InvariantQuiesce}, 4},
		{[]properties.InvariantName{properties.InvariantLinearizableRead}, 1},
		{[]properties.InvariantName{properties.InvariantLiveness, properties.InvariantCommittedNeverLost}, 1},
		{[]properties.InvariantName{properties.InvariantMonotonicRead, properties.InvariantQuiesce}, 1},
		{[]properties.InvariantName{properties.InvariantCrash}, 3},
		{[]properties.InvariantName{properties.InvariantNoPartialCommit, properties.InvariantCrash}, 1},
		{[]properties.InvariantName{properties.InvariantCrash, properties.InvariantStoreMatchesMemory}, 1},
		{[]properties.InvariantName{properties.InvariantCrash, properties.InvariantLiveness}, 4},
	} {
		res := &runner.Result{}
		for _, n := range c.names {
			res.Violations = append(res.Violations, runner.Violation{Invariant: n, Message: "planted"})
		}
		if got := exitCodeOf(res); got != c.want {
			t.Errorf("violations %v: exit %d, want %d", c.names, got, c.want)
		}
	}
}

// TestRunCommandLivenessOnlyExits4: the planted writes-wait-for-learner
// bug stops a group acknowledging writes while a replaced broker catches
// up; seed 1 with replaced disks is caught by LivenessDuringChange alone
// and exits 4, and the same run without the bug exits 0.
// (position-apart-from-state, the earlier example, is a safety failure
// now: StoreRoundsWhole names the torn store commit.)
func TestRunCommandLivenessOnlyExits4(t *testing.T) {
	args := []string{"--seed", "1", "--duration", "10s", "--faults", "diskreplace", "--fault-gap", "1s"}
	var out, errOut bytes.Buffer
	if code := runCommand(args, &out, &errOut); code != 0 {
		t.Fatalf("without the defect: exit %d:\n%s%s", code, out.String(), errOut.String())
	}
	out.Reset()
	code := runCommand(append(args, "--defects", "writes-wait-for-learner"), &out, &errOut)
	if code != 4 || !strings.Contains(out.String(), "violation LivenessDuringChange at ") {
		t.Fatalf("exit %d, want 4 with a LivenessDuringChange violation:\n%s%s", code, out.String(), errOut.String())
	}
}

// TestHelpNamesExitCodes: the top-level and run help spell out codes 1 to 4
// and point at --list-invariants.
func TestHelpNamesExitCodes(t *testing.T) {
	var top, run, errOut bytes.Buffer
	dispatch([]string{"help"}, &top, &errOut)
	runCommand([]string{"-h"}, &run, &errOut) // --help is asked for, so it goes to stdout
	for _, text := range []string{top.String(), run.String()} {
		for _, want := range []string{"1 a safety invariant", "3 no verdict", "4 a liveness", "--list-invariants"} {
			if !strings.Contains(text, want) {
				t.Errorf("help lacks %q:\n%s", want, text)
			}
		}
	}
}
