package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckTrace: an exported trace is valid; the same file with one
// answer moved before its apply is not what was written (its end line no
// longer matches: no verdict, exit 3) and, without its end line, is
// rejected, exit 1 (the steps of a cut trace happened); the file cut at a
// line boundary has no verdict, exit 3; the event trace of --out is
// refused naming what it is; a trace of an older format is read but not
// judged (exit 3).
func TestCheckTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.ndjson")
	var out, errb bytes.Buffer
	if code := dispatch([]string{"run", "--seed", "2", "--duration", "2s", "--trace-out", path}, &out, &errb); code != exitPass {
		t.Fatalf("run: exit %d: %s", code, errb.String())
	}
	out.Reset()
	if code := dispatch([]string{"check-trace", path}, &out, &errb); code != exitPass || !strings.Contains(out.String(), `"valid":true`) {
		t.Fatalf("check-trace: exit %d: %s %s", code, out.String(), errb.String())
	}
	dir := t.TempDir()
	out.Reset()
	if code := dispatch([]string{"check-trace", "--tla-module", dir, path}, &out, &errb); code != exitPass || !strings.Contains(out.String(), `"group":2`) {
		t.Fatalf("check-trace --tla-module: exit %d: %s %s", code, out.String(), errb.String())
	}
	if m, err := os.ReadFile(filepath.Join(dir, "MCTraceFelixAtomicCommit.tla")); err != nil || !strings.Contains(string(m), "EXTENDS TraceFelixAtomicCommit") {
		t.Fatalf("generated module: %v", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	whole := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	checkCut(t, path, whole)
	lines := answerBeforeItsApply(t, whole)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := dispatch([]string{"check-trace", path}, &out, &errb); code != exitIncomplete || !strings.Contains(errb.String(), "is not what was written") {
		t.Fatalf("edited trace with its old end line: exit %d: %s %s", code, out.String(), errb.String())
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines[:len(lines)-1], "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := dispatch([]string{"check-trace", path}, &out, &errb); code != exitSafety || !strings.Contains(out.String(), `"tried":["Answer"]`) || !strings.Contains(out.String(), `"incomplete":"no end line`) {
		t.Fatalf("edited trace without an end line: exit %d: %s", code, out.String())
	}
	if code := dispatch([]string{"check-trace", filepath.Join(t.TempDir(), "missing")}, &out, &errb); code != exitUsage {
		t.Errorf("missing file: exit %d", code)
	}
	for _, old := range []string{"v1.ndjson", "v2.ndjson"} {
		out.Reset()
		errb.Reset()
		path := filepath.Join("..", "..", "modeltrace", "testdata", "versions", old)
		if code := dispatch([]string{"check-trace", path}, &out, &errb); code != exitIncomplete || !strings.Contains(errb.String(), "predates the fields") {
			t.Errorf("%s: exit %d: %s %s", old, code, out.String(), errb.String())
		}
	}
}

// checkCut: the trace at path cut after its first half has no verdict
// (exit 3, incomplete); a run's event trace (--out's) is refused (exit 2)
// naming what it is. It leaves path as it found it.
func checkCut(t *testing.T, path string, whole []string) {
	t.Helper()
	cut := filepath.Join(t.TempDir(), "cut.ndjson")
	if err := os.WriteFile(cut, []byte(strings.Join(whole[:len(whole)/2], "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := dispatch([]string{"check-trace", cut}, &out, &errb); code != exitIncomplete || !strings.Contains(errb.String(), "cut short") || strings.Contains(out.String(), `"valid":true`) {
		t.Fatalf("the first half of a trace: exit %d: %s %s", code, out.String(), errb.String())
	}
	dir := filepath.Join(t.TempDir(), "run")
	if code := dispatch([]string{"run", "--seed", "2", "--duration", "200ms", "--out", dir}, &out, &errb); code != exitPass {
		t.Fatalf("run --out: exit %d: %s", code, errb.String())
	}
	events, err := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	if err != nil || len(events) != 1 {
		t.Fatalf("run --out wrote %v (%v), want one event trace", events, err)
	}
	errb.Reset()
	if code := dispatch([]string{"check-trace", events[0]}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "this is the event trace") {
		t.Fatalf("the event trace: exit %d: %s", code, errb.String())
	}
}

// answerBeforeItsApply moves the trace's first answer line to just before
// its own apply line: on its broker, in the group and of the digest its
// request line names, at the answer's offset.
func answerBeforeItsApply(t *testing.T, lines []string) []string {
	t.Helper()
	type step struct {
		Kind                  string
		Broker, Group, Client uint64
		ReqID                 uint64 `json:"req_id"`
		Digest, Offset        uint64
	}
	steps := make([]step, len(lines))
	asked := map[[2]uint64]step{}
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &steps[i]); err != nil {
			continue // the header
		}
		s := steps[i]
		switch s.Kind {
		case "Request":
			asked[[2]uint64{s.Client, s.ReqID}] = s
		case "Answer":
			q := asked[[2]uint64{s.Client, s.ReqID}]
			for j := i - 1; j >= 0; j-- {
				if a := steps[j]; a.Kind == "Apply" && a.Broker == s.Broker && a.Group == q.Group && a.Digest == q.Digest && a.Offset == s.Offset {
					out := append(append(append([]string(nil), lines[:j]...), l), lines[j:i]...)
					return append(out, lines[i+1:]...)
				}
			}
			t.Fatalf("trace line %d: an answer with no apply above it", i+1)
		}
	}
	t.Fatal("the trace holds no answer")
	return nil
}
