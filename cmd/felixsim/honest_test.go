package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim/verdict"
)

// felixsim runs one command line in this process and returns its exit
// code, stdout and stderr.
func felixsim(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := dispatch(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// recordedHash is the trace hash a plan file records.
func recordedHash(t *testing.T, planPath string) string {
	t.Helper()
	text, err := os.ReadFile(planPath)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^# trace-hash: ([0-9a-f]{16})$`).FindStringSubmatch(string(text))
	if m == nil {
		t.Fatalf("%s records no trace hash:\n%s", planPath, text)
	}
	return m[1]
}

// TestRunPlanReproducesTheSavedRun: the first bullet. A failing
// run saved with --out and run again with `run --plan` gives the same
// verdict (exit 1) and the trace hash the plan records; --json says
// reproduced. A 5-broker plan is run as saved (no --nodes needed).
func TestRunPlanReproducesTheSavedRun(t *testing.T) {
	for _, tc := range []struct {
		args []string
		exit int
	}{
		{[]string{"--seed", "1", "--duration", "10s", "--defects", "commit-as-two-records"}, exitSafety},
		{[]string{"--seed", "3", "--nodes", "5", "--duration", "3s"}, exitPass},
	} {
		dir := filepath.Join(t.TempDir(), "s")
		code, _, errOut := felixsim(t, append(append([]string{"run"}, tc.args...), "--out", dir)...)
		if code != tc.exit {
			t.Fatalf("%v: exit %d, want %d: %s", tc.args, code, tc.exit, errOut)
		}
		plan := filepath.Join(dir, "plan.txt")
		code, out, errOut := felixsim(t, "run", "--plan", plan, "--json")
		var got struct {
			TraceHash     string `json:"trace_hash"`
			PlanTraceHash string `json:"plan_trace_hash"`
			Reproduced    bool   `json:"reproduced"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: --plan --json: %v\n%s%s", tc.args, err, out, errOut)
		}
		if want := recordedHash(t, plan); code != tc.exit || got.TraceHash != want || got.PlanTraceHash != want || !got.Reproduced {
			t.Fatalf("%v: run --plan exit %d (want %d), %+v, the plan records %s; %s", tc.args, code, tc.exit, got, want, errOut)
		}
	}
}

// TestRunPlanRefusesWhatDiffersOrDiverges: a flag that differs from the
// plan's run description is refused before anything runs, each named; a
// flag equal to it is accepted; a plan whose recorded hash the run does
// not reproduce exits 5 with DIVERGED, never 0.
func TestRunPlanRefusesWhatDiffersOrDiverges(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	if code, _, errOut := felixsim(t, "run", "--seed", "2", "--duration", "2s", "--out", dir); code != exitPass {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	plan := filepath.Join(dir, "plan.txt")
	code, _, errOut := felixsim(t, "run", "--plan", plan, "--defects", "stale-read", "--nodes", "5", "--liveness-budget", "9s")
	if code != exitUsage || !strings.Contains(errOut, "--nodes 5, --defects stale-read, --liveness-budget 9s refused") ||
		!strings.Contains(errOut, "nodes 3, defects none, liveness-budget 30s") {
		t.Fatalf("differing flags: exit %d: %s", code, errOut)
	}
	if code, _, errOut := felixsim(t, "run", "--plan", plan, "--nodes", "3", "--seed", "2", "--duration", "2s"); code != exitPass {
		t.Fatalf("equal flags: exit %d: %s", code, errOut)
	}
	text, _ := os.ReadFile(plan)
	tampered := strings.Replace(string(text), "# trace-hash: "+recordedHash(t, plan), "# trace-hash: 0123456789abcdef", 1)
	if err := os.WriteFile(plan, []byte(tampered), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = felixsim(t, "run", "--plan", plan)
	if code != exitDiverged || !strings.Contains(errOut, "DIVERGED") || !strings.Contains(errOut, "0123456789abcdef") {
		t.Fatalf("tampered hash: exit %d: %s", code, errOut)
	}
}

// TestCutPlansAreRefused: the bullet on a plan cut short (head -c
// 300) and on a deleted fault line: every command that takes a plan
// refuses it with the reason, exit 2, instead of running something else.
func TestCutPlansAreRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	if code, _, errOut := felixsim(t, "run", "--seed", "1", "--duration", "6s", "--fault-gap", "500ms", "--out", dir); code != exitPass {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	text, _ := os.ReadFile(filepath.Join(dir, "plan.txt"))
	lines := strings.SplitAfter(string(text), "\n")
	var noFault []string
	dropped := false
	for _, l := range lines {
		if !dropped && strings.HasPrefix(l, "fault ") {
			dropped = true
			continue
		}
		noFault = append(noFault, l)
	}
	if !dropped {
		t.Fatalf("the plan holds no fault:\n%s", text)
	}
	for name, cut := range map[string]string{"head -c 300": string(text[:300]), "a fault line deleted": strings.Join(noFault, "")} {
		path := filepath.Join(t.TempDir(), "plan.txt")
		os.WriteFile(path, []byte(cut), 0o644)
		for _, args := range [][]string{{"run", "--plan", path}, {"replay", "--plan", path}, {"scenario", "from", path},
			{"shrink", "--plan", path, "--out", t.TempDir()}} {
			code, _, errOut := felixsim(t, args...)
			if code != exitUsage || !strings.Contains(errOut, "refused") {
				t.Errorf("%s: %v: exit %d: %s", name, args[0], code, errOut)
			}
		}
	}
}

// TestSavedBudgetsReplay: a run saved with a liveness budget too short
// for its cluster (a liveness failure, where the default budget passes)
// replays (replay DIR and run --plan) to the same hash and exit code.
func TestSavedBudgetsReplay(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	want, _, errOut := felixsim(t, "run", "--seed", "7", "--duration", "3s", "--liveness-budget", "1ms", "--quiesce-budget", "3s", "--out", dir)
	if want != exitLiveness {
		t.Fatalf("run: exit %d, want %d: %s", want, exitLiveness, errOut)
	}
	if code, out, errOut := felixsim(t, "replay", dir); code != want || !strings.Contains(out, "replay reproduced trace hash") {
		t.Fatalf("replay: exit %d, want %d:\n%s%s", code, want, out, errOut)
	}
	if code, _, errOut := felixsim(t, "run", "--plan", filepath.Join(dir, "plan.txt")); code != want {
		t.Fatalf("run --plan: exit %d, want %d: %s", code, want, errOut)
	}
}

// TestCheckTraceJudgesOnlyWithEvidence: the check-trace bullets.
// A 5-broker trace is valid without --nodes (the header says 5); an
// empty file and a group with no steps are no verdict (exit 3, "valid"
// false); a --nodes that contradicts the header is refused.
func TestCheckTraceJudgesOnlyWithEvidence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t5.ndjson")
	if code, _, errOut := felixsim(t, "run", "--seed", "3", "--nodes", "5", "--duration", "2s", "--trace-out", path); code != exitPass {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	if code, out, errOut := felixsim(t, "check-trace", path); code != exitPass || !strings.Contains(out, `"valid":true`) || !strings.Contains(out, `"brokers":5`) {
		t.Fatalf("check-trace: exit %d: %s%s", code, out, errOut)
	}
	empty := filepath.Join(t.TempDir(), "empty.ndjson")
	os.WriteFile(empty, nil, 0o644)
	for _, args := range [][]string{{"check-trace", empty}, {"check-trace", "--nodes", "3", empty}, {"check-trace", "--group", "99", path}} {
		code, out, errOut := felixsim(t, args...)
		if code != exitIncomplete || strings.Contains(out, `"valid":true`) || !strings.Contains(errOut, "no verdict") {
			t.Errorf("%v: exit %d: %s%s", args, code, out, errOut)
		}
	}
	if code, _, errOut := felixsim(t, "check-trace", "--nodes", "3", path); code != exitUsage || !strings.Contains(errOut, "5 brokers") {
		t.Errorf("--nodes 3 on a 5-broker trace: exit %d: %s", code, errOut)
	}
}

// TestNothingCheckedIsNoPass: a run whose checks judged nothing (a fault
// phase too short for any call to complete) is no verdict, exit 3, and a
// sweep shard that holds no seed is no verdict too.
func TestNothingCheckedIsNoPass(t *testing.T) {
	code, out, _ := felixsim(t, "run", "--seed", "1", "--duration", "1ms")
	if code != exitIncomplete || !strings.HasPrefix(out, "NO VERDICT") || !strings.Contains(out, "violation Evidence") {
		t.Fatalf("a run with nothing judged: exit %d:\n%s", code, out)
	}
	code, out, errOut := felixsim(t, "sweep", "--seeds", "1..2", "--shard", "3/3", "--duration", "1s")
	if code != exitIncomplete || !strings.Contains(errOut, "no seed ran") || !strings.Contains(out, "0 seeds run") {
		t.Fatalf("an empty shard: exit %d:\n%s%s", code, out, errOut)
	}
}

// TestSweepChecksOutputsFirstAndAlwaysPrints: the issue's --junit
// bullet. An unwritable --junit path is refused before any seed runs; a
// report whose file cannot be written is still printed, then exit 3.
func TestSweepChecksOutputsFirstAndAlwaysPrints(t *testing.T) {
	code, out, errOut := felixsim(t, "sweep", "--seeds", "1..3", "--duration", "2s", "--defects", "commit-as-two-records", "--junit", "/nonexistent/j.xml")
	if code != exitUsage || out != "" || !strings.Contains(errOut, "nothing ran") {
		t.Fatalf("unwritable --junit: exit %d:\n%s%s", code, out, errOut)
	}
	path := filepath.Join(t.TempDir(), "shard.json")
	if err := os.WriteFile(path, []byte(shardReport), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := readReportFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	v := writeReport(rep, false, filepath.Join(t.TempDir(), "gone", "j.xml"), "", &stdout, &stderr, "sweep")
	if v != verdict.NoVerdict || !strings.Contains(stdout.String(), "sweep seeds") || !strings.Contains(stderr.String(), "not written") {
		t.Fatalf("a report whose --junit cannot be written: %s:\n%s%s", v, stdout.String(), stderr.String())
	}
}

// TestSkippedScopesNamedWithTheirReason: a run whose linearizability
// check skips scopes lists each in --json with its own reason, and the
// summary does not call them lost to retention when no replica held them.
func TestSkippedScopesNamedWithTheirReason(t *testing.T) {
	args := []string{"run", "--seed", "5", "--duration", "300ms", "--nodes", "5", "--streams", "2", "--shards", "3", "--faults", "none"}
	code, out, errOut := felixsim(t, append(args, "--json")...)
	var got struct {
		Linearizable struct {
			Skipped  int `json:"skipped"`
			Unjudged []struct{ Scope, Verdict, Reason string }
		} `json:"linearizable"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != exitPass {
		t.Fatalf("exit %d: %v\n%s%s", code, err, out, errOut)
	}
	l := got.Linearizable
	if l.Skipped == 0 || len(l.Unjudged) != l.Skipped {
		t.Fatalf("skipped %d, unjudged %+v", l.Skipped, l.Unjudged)
	}
	for _, u := range l.Unjudged {
		if u.Scope == "" || u.Verdict != "skipped" || u.Reason == "" {
			t.Errorf("unjudged scope %+v", u)
		}
	}
	_, summary, _ := felixsim(t, args...)
	if strings.Contains(summary, "lost to retention") && !strings.Contains(summary, "retention dropped") {
		t.Errorf("summary:\n%s", summary)
	}
	if !strings.Contains(summary, l.Unjudged[0].Reason) {
		t.Errorf("the summary does not give the reason %q:\n%s", l.Unjudged[0].Reason, summary)
	}
}

// TestLostHistoryExitsNoVerdict: a run whose history cannot go to disk
// (its scratch directory is gone; a 60 s run spills after about 40 s)
// is no verdict, exit 3, naming the directory, never a pass or a usage
// error.
func TestLostHistoryExitsNoVerdict(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "gone"))
	code, out, errOut := felixsim(t, "run", "--seed", "1", "--duration", "60s")
	if code != exitIncomplete || !strings.Contains(errOut, "no verdict") || !strings.Contains(errOut, "gone") || strings.Contains(out, "PASS") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
