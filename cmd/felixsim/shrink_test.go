package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim/faultplan"
)

// TestShrinkBadUsageIsOneLine: shrink's refusals are one line pointing to
// --help, exit 2, before anything runs.
func TestShrinkBadUsageIsOneLine(t *testing.T) {
	out := t.TempDir()
	cases := [][]string{
		{"shrink", "--bogus"}, {"shrink", "--out", out}, {"shrink", "--seed", "3"},
		{"shrink", "--seed", "3", "--plan", "x.plan", "--out", out},
		{"shrink", "--seed", "3", "--defects", "nope", "--out", out},
		{"shrink", "--seed", "3", "--jobs", "0", "--out", out},
		{"shrink", "--seed", "3", "--budget", "0s", "--out", out},
		{"shrink", "--seed", "3", "--invariant", "NoSuchThing", "--out", out},
		{"shrink", "--plan", "/nonexistent/plan.txt", "--out", out},
		{"shrink", "--seed", "3", "--out", out, "stray"},
		{"shrink", "/nonexistent-dir", "--out", out},
		{"shrink", "a", "b", "--out", out},
	}
	for _, args := range cases {
		var stdout, stderr bytes.Buffer
		code := dispatch(args, &stdout, &stderr)
		e := stderr.String()
		if code != exitUsage || strings.Count(e, "\n") != 1 || !strings.HasPrefix(e, "felixsim shrink: ") || !strings.Contains(e, "'felixsim shrink --help'") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line pointing to --help", args, code, e)
		}
	}
}

// TestShrinkCommand: the command shrinks a failing seed into --out; the
// plan it writes replays, in a fresh `felixsim run --plan` process, to
// the same failure (exit 1, the invariant it names).
func TestShrinkCommand(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "felixsim")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	out := filepath.Join(dir, "small")
	cmd := exec.Command(bin, "shrink", "--seed", "3", "--duration", "2s", "--defects", "commit-as-two-records", "--out", out)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("shrink: %v\n%s", err, b)
	}
	listing := string(b)
	for _, want := range []string{"shrunk to violate NoPartialCommit", "before: ", "after: ", "operations (", "verified: a fresh run", "replay: felixsim replay "} {
		if !strings.Contains(listing, want) {
			t.Fatalf("listing lacks %q:\n%s", want, listing)
		}
	}
	text, err := os.ReadFile(filepath.Join(out, "plan.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := faultplan.ParsePlan(string(text)); err != nil || !strings.Contains(string(text), "# defects: commit-as-two-records") {
		t.Fatalf("plan.txt does not parse or lacks its defects line: %v\n%s", err, text)
	}
	for _, f := range []string{originalPlanFile, shrinkListingFile, "timeline.html", "events.ndjson"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatal(err)
		}
	}
	// The saved run replays hash-checked to the same failure (exit 1).
	rb, err := exec.Command(bin, "replay", out).CombinedOutput()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != exitSafety || !strings.Contains(string(rb), "reproduced trace hash") || !strings.Contains(string(rb), "NoPartialCommit") {
		t.Fatalf("replay of the shrunk run: %v\n%s", err, rb)
	}
	// A saved run's directory shrinks too (its plan's meta lines give the
	// defects); shrinking the shrunk run again keeps it failing.
	again := filepath.Join(dir, "again")
	if b, err := exec.Command(bin, "shrink", out, "--out", again).CombinedOutput(); err != nil || !strings.Contains(string(b), "verified: a fresh run of the shrunk plan violates NoPartialCommit") {
		t.Fatalf("shrink of a saved run: %v\n%s", err, b)
	}
	checkScenarioFrom(t, bin, out, dir)
}

// checkScenarioFrom: the shrunk run written as a scenario file is a
// regression test: it passes as written, its check names the run's
// invariant, and with the defect off it fails (a diff, exit 1) because
// its check then finds nothing.
func checkScenarioFrom(t *testing.T, bin, saved, dir string) {
	t.Helper()
	file := filepath.Join(dir, "regression.txt")
	b, err := exec.Command(bin, "scenario", "from", saved, "--out", file).CombinedOutput()
	if err != nil || !strings.Contains(string(b), "the scenario's check shows NoPartialCommit, as the run did") {
		t.Fatalf("scenario from: %v\n%s", err, b)
	}
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "\ncheck\n----\nviolation NoPartialCommit: ") || !strings.Contains(string(text), "--defect commit-as-two-records") {
		t.Fatalf("the scenario does not plant the defect or its check does not name NoPartialCommit:\n%s", text)
	}
	if b, err := exec.Command(bin, "scenario", file).CombinedOutput(); err != nil {
		t.Fatalf("the written scenario does not pass as written: %v\n%s", err, b)
	}
	b, err = exec.Command(bin, "scenario", "--defects-off", file).CombinedOutput()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != exitSafety || !strings.Contains(string(b), "  + ok (") {
		t.Fatalf("with the defect off the scenario should fail its check (exit 1, check ok): %v\n%s", err, b)
	}
}
