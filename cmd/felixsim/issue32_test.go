package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The bullets of issue 32, run as written (in a fresh felixsim process,
// from a scratch directory), each with the answer or the refusal it must
// give.

// TestNoFsyncSeed1IsASafetyFailure: three safety violations, then raft's
// panic: the run exits 1, FAIL (safety), and still names the crash; the
// sweep of the same seed agrees.
func TestNoFsyncSeed1IsASafetyFailure(t *testing.T) {
	dir := t.TempDir()
	code, out := shell(t, dir, "felixsim run --seed 1 --duration 10s --defects no-fsync")
	if code != 1 || !strings.HasPrefix(out, "FAIL (safety) seed 1") || !strings.Contains(out, "violation Crash") {
		t.Fatalf("run: exit %d:\n%s", code, out)
	}
	code, out = shell(t, dir, "felixsim sweep --seeds 1..1 --duration 10s --defects no-fsync")
	if code != 1 || !regexp.MustCompile(`(?m)^1 +\S+ +safety +felixsim run --seed 1 `).MatchString(out) {
		t.Fatalf("sweep: exit %d:\n%s", code, out)
	}
}

// TestFailedWriteKeepsTheVerdict: an output that cannot be written
// (/dev/full) no longer loses the verdict: the summary comes first, then
// a line naming the file; a passing run exits 3 (no verdict without the
// output asked for), a failing one keeps its code.
func TestFailedWriteKeepsTheVerdict(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		line, file string
		code       int
	}{
		{"felixsim run --seed 1 --duration 2s --history /dev/full", "--history /dev/full", 3},
		{"felixsim run --seed 1 --duration 2s --trace-out /dev/full", "--trace-out /dev/full", 3},
		{"felixsim run --seed 1 --duration 10s --defects no-fsync --history /dev/full", "--history /dev/full", 1},
	} {
		code, out := shell(t, dir, c.line+" 2>err.txt")
		errText, _ := os.ReadFile(filepath.Join(dir, "err.txt"))
		if code != c.code || !strings.Contains(out, "trace hash ") || !strings.Contains(string(errText), c.file+" not written") {
			t.Errorf("%s: exit %d, want %d:\n%s%s", c.line, code, c.code, out, errText)
		}
	}
}

// TestNothingOverwritten: a saved run is never replaced without --force,
// shrink never writes over its input, and the event trace never over the
// model trace asked for; the event-trace reader given a model trace says
// what it was given.
func TestNothingOverwritten(t *testing.T) {
	dir := t.TempDir()
	if code, out := shell(t, dir, "felixsim run --seed 3 --duration 8s --defects ack-before-quorum --out D"); code != 1 {
		t.Fatalf("the saved run: exit %d:\n%s", code, out)
	}
	plan, _ := os.ReadFile(filepath.Join(dir, "D", "plan.txt"))
	for _, c := range []struct{ line, why string }{
		{"felixsim run --seed 4 --duration 2s --out D", "not empty"},
		{"felixsim shrink D --out D", "an input is never overwritten"},
		{"felixsim shrink --plan D/plan.txt --out D --force", "an input is never overwritten"},
		{"felixsim run --seed 2 --duration 2s --out d --trace-out d/trace.ndjson", "lies in the --out directory"},
		{"felixsim scenario from D --out D/plan.txt", "an input is never overwritten"},
	} {
		code, out := shell(t, dir, c.line)
		if code != 2 || !strings.Contains(out, c.why) || !strings.Contains(out, "felixsim") || strings.Count(out, "\n") != 1 {
			t.Errorf("%s: exit %d, want 2 saying %q:\n%s", c.line, code, c.why, out)
		}
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "D", "plan.txt")); string(now) != string(plan) {
		t.Fatalf("the saved plan changed")
	}
	if _, err := os.Stat(filepath.Join(dir, "d")); err == nil {
		t.Errorf("a refused run made its --out directory")
	}
	if code, out := shell(t, dir, "felixsim run --seed 4 --duration 2s --out D --force"); code != 0 || !strings.Contains(out, "artifacts: D") {
		t.Errorf("--force: exit %d:\n%s", code, out)
	}
	shell(t, dir, "felixsim run --seed 2 --duration 2s --trace-out model.ndjson")
	code, out := shell(t, dir, "felixsim replay --plan D/plan.txt --trace model.ndjson")
	if code != 2 || !strings.Contains(out, "model.ndjson") || !strings.Contains(out, "this is a model trace") {
		t.Errorf("replay given a model trace: exit %d:\n%s", code, out)
	}
}

// TestDevicesAreNotPlans: a device is refused as an input at once,
// before a byte of it is read (it used to grow to a gigabyte).
func TestDevicesAreNotPlans(t *testing.T) {
	for _, line := range []string{"felixsim run --plan /dev/urandom", "felixsim replay --plan /dev/zero"} {
		code, out := shell(t, t.TempDir(), line)
		if code != 2 || !strings.Contains(out, "not a regular file") {
			t.Errorf("%s: exit %d:\n%s", line, code, out)
		}
	}
}

// TestScenarioRewriteSaysUnchanged: --rewrite says "unchanged" for a file
// whose output did not change and leaves it alone; "rewrote" for one
// whose expected output was wrong.
func TestScenarioRewriteSaysUnchanged(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "scenarios", "order-42.txt"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), src, 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte(strings.Replace(string(src), "----\nok", "----\nwrong", 1)), 0o644)
	code, out := shell(t, dir, "felixsim scenario --rewrite a.txt b.txt")
	if code != 0 || out != "unchanged a.txt\nrewrote b.txt\n" {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(b) != string(src) {
		t.Fatalf("the rewritten file is not the checked-in one")
	}
}

// TestSmallerItems: the smaller bullets, each as written.
func TestSmallerItems(t *testing.T) {
	dir := t.TempDir()
	if code, out := shell(t, dir, "felixsim help help"); code != 0 || !strings.Contains(out, "commands:") {
		t.Errorf("help help: exit %d:\n%s", code, out)
	}
	if _, out := shell(t, dir, "felixsim help run"); !strings.Contains(out, "  -out DIR\n") || strings.Contains(out, "-out felixsim") {
		t.Errorf("help run names -out's argument wrongly:\n%s", out)
	}
	for _, c := range []struct{ cmd, rng, refused string }{
		{"sweep", "(1..256)", "felixsim sweep --seeds 1..2 --jobs 257"},
		{"shrink", "(1..64)", "felixsim shrink --seed 1 --out x --jobs 65"},
	} {
		_, out := shell(t, dir, "felixsim help "+c.cmd)
		if !regexp.MustCompile(`(?m)^  -jobs int\n.*` + regexp.QuoteMeta(c.rng)).MatchString(out) {
			t.Errorf("help %s does not give --jobs %s:\n%s", c.cmd, c.rng, out)
		}
		if code, out := shell(t, dir, c.refused); code != 2 || !strings.Contains(out, "--jobs") {
			t.Errorf("%s: exit %d:\n%s", c.refused, code, out)
		}
	}
	code, out := shell(t, dir, "felixsim run --seed 1 --duration 300ms --out 'a b'")
	if code != 0 || !strings.Contains(out, "`felixsim replay 'a b'` re-runs it") {
		t.Errorf("a directory with a space: exit %d:\n%s", code, out)
	}
	src, _ := os.ReadFile(filepath.Join("..", "..", "sim", "artifact", "testdata", "versions", "plan-v2.txt"))
	os.WriteFile(filepath.Join(dir, "old-plan.txt"), src, 0o644)
	// The v2 plan records no defect and 100 ms of operations that judge
	// nothing: no verdict, and no hash to compare.
	code, out = shell(t, dir, "felixsim run --plan old-plan.txt")
	if code != 3 || !strings.Contains(out, "old-plan.txt records no trace hash: nothing was compared") {
		t.Errorf("a plan without its trace hash: exit %d:\n%s", code, out)
	}
}

// TestPlanLinesRefusedAsTheirFlags: a plan line gets its flag's range and
// its refusal names the line: the duration that ran until killed,
// a client count --clients refuses, a fault counted from 1.
func TestPlanLinesRefusedAsTheirFlags(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "sim", "artifact", "testdata", "versions", "plan-v2.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ old, new, want string }{
		{"duration_ns 100000000", "duration_ns 36000000000000001", "plan line 4: duration_ns 36000000000000001 refused"},
		{"duration_ns 100000000", "duration_ns 9223372036854775807", "plan line 4: duration_ns 9223372036854775807 refused"},
		{"param clients 4", "param clients 40", "plan line 7: param clients 40 refused: want 2..16, as --clients"},
		{"param sticky_clients 1", "param sticky_clients 1\nfault at_ns=1 kind=pause node=1\nfault at_ns=2 kind=kill node=42", "plan line 15: fault 2 of 2: "},
	} {
		text := strings.Replace(string(src), c.old, c.new, 1)
		if text == string(src) {
			t.Fatalf("%q not in the plan", c.old)
		}
		os.WriteFile(filepath.Join(dir, "p.txt"), []byte(text), 0o644)
		for _, line := range []string{"felixsim run --plan p.txt", "felixsim replay --plan p.txt"} {
			code, out := shell(t, dir, line)
			if code != 2 || !strings.Contains(out, c.want) {
				t.Errorf("%s with %q: exit %d, want 2 saying %q:\n%s", line, c.new, code, c.want, out)
			}
		}
	}
	if code, out := shell(t, dir, "felixsim run --seed 1 --duration 10001h"); code != 2 || !strings.Contains(out, "--duration 10001h0m0s refused: want 1ns..10000h") {
		t.Errorf("--duration 10001h: exit %d:\n%s", code, out)
	}
}
