package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckTrace: an exported trace is valid; the same file with one
// answer moved before the line above it (its apply) is rejected, exit 1.
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
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, `{"kind":"Answer"`) {
			lines[i-1], lines[i] = lines[i], lines[i-1]
			break
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := dispatch([]string{"check-trace", path}, &out, &errb); code != exitSafety || !strings.Contains(out.String(), `"tried":["Answer"]`) {
		t.Fatalf("edited trace: exit %d: %s", code, out.String())
	}
	if code := dispatch([]string{"check-trace", filepath.Join(t.TempDir(), "missing")}, &out, &errb); code != exitUsage {
		t.Errorf("missing file: exit %d", code)
	}
}
