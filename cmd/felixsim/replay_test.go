package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRunOutThenReplay: `run --out DIR` of a failing run writes the
// artifact and points at it; `replay DIR` reproduces the hash, exits 1
// (the violation reproduced) and its reproduce line is `felixsim replay
// DIR`; --until prints the cluster state; a diverging replay exits 5.
func TestRunOutThenReplay(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "art")
	var out, errOut bytes.Buffer
	code := runCommand([]string{"--seed", "3", "--duration", "8s", "--defects", "ack-before-quorum", "--out", dir}, &out, &errOut)
	if code != exitSafety || !strings.Contains(out.String(), "artifacts: "+dir) {
		t.Fatalf("run exit %d:\n%s%s", code, out.String(), errOut.String())
	}
	out.Reset()
	code = replayCommand([]string{dir, "--until", "2s", "--scope", "acme/orders/order-events/0"}, &out, &errOut)
	s := out.String()
	if code != exitSafety || !strings.Contains(s, "replay reproduced trace hash") || !strings.Contains(s, "reproduce: felixsim replay "+dir) ||
		strings.Contains(s, "PLAN-FILE") || !strings.Contains(s, "cluster state at 2.000s") || !strings.Contains(s, "log offset") {
		t.Fatalf("replay exit %d:\n%s%s", code, s, errOut.String())
	}
	plan := filepath.Join(dir, "plan.txt")
	text, _ := os.ReadFile(plan)
	m := regexp.MustCompile(`fault at_ns=(\d+)`).FindStringSubmatchIndex(string(text))
	at, _ := strconv.ParseInt(string(text[m[2]:m[3]]), 10, 64)
	tampered := string(text[:m[2]]) + strconv.FormatInt(at+1, 10) + string(text[m[3]:])
	os.WriteFile(plan, []byte(tampered), 0o644)
	out.Reset()
	// The diverged run still violates a safety invariant: that decides
	// (exit 1), and the divergence is named.
	if code := replayCommand([]string{dir}, &out, &errOut); code != exitSafety || !strings.Contains(out.String(), "replay DIVERGED") ||
		!strings.Contains(out.String(), "first diverging event") {
		t.Fatalf("tampered replay exit %d:\n%s", code, out.String())
	}
}

// TestReplayUsage: --help prints the usage with an example and exits 0;
// every bad invocation is one line on stderr naming the problem and
// pointing at --help, exit 2, with nothing run.
func TestReplayUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := replayCommand([]string{"--help"}, &out, &errOut); code != exitPass || !strings.Contains(out.String(), "felixsim replay seed3") {
		t.Fatalf("--help exit %d: %s", code, out.String())
	}
	notDir := filepath.Join(t.TempDir(), "plan.txt")
	os.WriteFile(notDir, []byte("felixsim-plan v1\n"), 0o644)
	for _, args := range [][]string{{}, {"--bogus"}, {"--until", "soon", "x"}, {t.TempDir(), "--plan", "p"}, {notDir},
		{"--plan", "/no/such/plan"}, {"--plan", notDir}, {t.TempDir(), "extra"}, {"--scope", "a/b/c/0", "--plan", notDir}} {
		out.Reset()
		errOut.Reset()
		code := replayCommand(args, &out, &errOut)
		msg := errOut.String()
		if code != exitUsage || strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "felixsim replay: ") {
			t.Errorf("%q: exit %d, stderr %q", args, code, msg)
		}
	}
}

// TestRunRefusesUnwritableOutputsFirst: --history or --out at a path that
// cannot be written is refused before the run (no summary is printed).
func TestRunRefusesUnwritableOutputsFirst(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, args := range [][]string{{"--history", filepath.Join(file, "h.jsonl")}, {"--out", file}} {
		var out, errOut bytes.Buffer
		code := runCommand(append([]string{"--seed", "1", "--duration", "60s"}, args...), &out, &errOut)
		if code != exitUsage || out.Len() != 0 || !strings.Contains(errOut.String(), "nothing ran") {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, code, out.String(), errOut.String())
		}
	}
}
