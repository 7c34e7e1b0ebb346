package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestRunCheckDeterminism: a real seed run twice in one process agrees,
// in the text report and in JSON, and keeps the run's own verdict: exit 0
// for a clean seed, 1 for a planted defect. (A planted mismatch is shown
// caught in sim/runner's TestCheckDeterminismCatchesPlantedLeak.)
func TestRunCheckDeterminism(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runCommand([]string{"--seed", "6", "--duration", "2s", "--check-determinism"}, &out, &errOut); code != exitPass ||
		!strings.Contains(out.String(), "determinism: seed 6 ran twice in one process, both trace hashes") {
		t.Fatalf("exit %d:\n%s%s", code, out.String(), errOut.String())
	}
	out.Reset()
	code := runCommand([]string{"--seed", "1", "--duration", "2s", "--defects", "commit-as-two-records", "--check-determinism", "--json"}, &out, &errOut)
	var m struct {
		TraceHash   string `json:"trace_hash"`
		Determinism struct {
			Deterministic   bool   `json:"deterministic"`
			SecondTraceHash string `json:"second_trace_hash"`
		} `json:"determinism"`
	}
	if err := json.Unmarshal(out.Bytes(), &m); err != nil || code != exitSafety || !m.Determinism.Deterministic ||
		m.TraceHash != m.Determinism.SecondTraceHash || len(m.TraceHash) != 16 {
		t.Fatalf("exit %d, %+v, %v:\n%s", code, m, err, out.String())
	}
}
