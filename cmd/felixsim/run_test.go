package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/faultplan"
)

// TestRunCommandJSON: --json prints exactly one JSON object with the
// promised fields, and a clean run exits 0.
func TestRunCommandJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	code := runCommand([]string{"--seed", "5", "--duration", "2s", "--json"}, &out, &errOut)
	if code != exitPass {
		t.Fatalf("exit %d, stderr %s, stdout %s", code, errOut.String(), out.String())
	}
	dec := json.NewDecoder(&out)
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("stdout is not JSON: %v", err)
	}
	if dec.More() {
		t.Fatal("more than one JSON value printed")
	}
	for _, k := range []string{"seed", "trace_hash", "violations", "ops", "sim_seconds", "wall_seconds"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %v", k, m)
		}
	}
	if v, ok := m["violations"].([]any); !ok || len(v) != 0 {
		t.Fatalf("violations = %#v, want an empty list", m["violations"])
	}
	if m["seed"].(float64) != 5 || len(m["trace_hash"].(string)) != 16 || m["sim_seconds"].(float64) < 2 {
		t.Fatalf("fields: %v", m)
	}
}

// TestRunCommandSummaryAndViolation: the summary ends with the trace hash;
// a planted defect that the checks catch exits 1 with a reproduce line.
func TestRunCommandSummaryAndViolation(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runCommand([]string{"--seed", "5", "--duration", "2s"}, &out, &errOut); code != exitPass {
		t.Fatalf("exit %d: %s %s", code, out.String(), errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if !strings.HasPrefix(lines[len(lines)-1], "trace hash ") {
		t.Fatalf("summary does not end with the trace hash:\n%s", out.String())
	}
	out.Reset()
	// The planted stale-read defect, with a leader cut off from its peers
	// while its clock stalls: some broker serves a stale state_get, which
	// the linearizable-read check reports.
	for b := 0; b < 3; b++ {
		out.Reset()
		path := writeStaleLeaderPlan(t, b)
		code := runCommand([]string{"--plan", path, "--defects", "stale-read"}, &out, &errOut)
		if code == exitPass {
			continue
		}
		want := "reproduce: felixsim run --seed 11 --nodes 3 --streams 1 --shards 4 --duration 10s --faults all --defects stale-read"
		if code != exitSafety || !strings.Contains(out.String(), "violation LinearizableRead") || !strings.Contains(out.String(), want) {
			t.Fatalf("exit %d, want %d with a reproduce line:\n%s", code, exitSafety, out.String())
		}
		return
	}
	t.Fatal("planted stale-read defect: every broker's scenario exited 0")
}

// writeStaleLeaderPlan writes a plan for seed 11 and the default world
// (3 brokers, 4 clients, the probe, the relay): broker b is cut from both peers at
// 3 s while its clock jumps back 4 s; the network heals at 8 s.
func writeStaleLeaderPlan(t *testing.T, b int) string {
	t.Helper()
	p := &faultplan.Plan{Seed: 11, Nodes: 9, DurationNs: 10e9, Faults: []faultplan.FaultEvent{
		{AtNs: 3e9, Kind: faultplan.FaultClockJump, Node: b, JumpNs: -4e9},
		{AtNs: 3e9, Kind: faultplan.FaultPartition, Node: b, Peer: (b + 1) % 3},
		{AtNs: 3e9, Kind: faultplan.FaultPartition, Node: b, Peer: (b + 2) % 3},
		{AtNs: 8e9, Kind: faultplan.FaultHealNet},
	}}
	path := filepath.Join(t.TempDir(), "stale.plan")
	if err := os.WriteFile(path, []byte(p.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunCommandUsage: bad flags exit 2 with one line naming the problem
// and a pointer to --help (not the flag list), never a panic.
func TestRunCommandUsage(t *testing.T) {
	for _, args := range [][]string{
		{}, {"--duration", "1s"}, {"--seed", "x"}, {"--nodes", "0"}, {"--nodes", "9"}, {"--shards", "0"}, {"--duration", "-1s"},
		{"--seed", "1", "--faults", "kil"}, {"--seed", "1", "--faults", ""}, {"--defects", "bogus"}, {"--bogus"}, {"extra"}, {"--streams", "99"},
		{"--plan", "/nonexistent/plan"}, {"--plan", writeStaleLeaderPlan(t, 0), "--seed", "8"},
		{"--plan", writeStaleLeaderPlan(t, 0), "--nodes", "5"},
	} {
		var out, errOut bytes.Buffer
		if code := runCommand(args, &out, &errOut); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
		if e := errOut.String(); strings.Count(e, "\n") != 1 || !strings.HasPrefix(e, "felixsim run: ") || !strings.Contains(e, "'felixsim run --help'") {
			t.Errorf("%v: stderr is not one line pointing to --help: %q", args, e)
		}
	}
}

// TestRunRegistered: the dispatcher knows `run` and lists it in the help.
func TestRunRegistered(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := dispatch([]string{"run", "--seed", "3", "--duration", "1s", "--json"}, &out, &errOut); code != exitPass {
		t.Fatalf("felixsim run via dispatch: exit %d: %s", code, errOut.String())
	}
	out.Reset()
	dispatch([]string{"help"}, &out, &errOut)
	if !strings.Contains(out.String(), "  run ") {
		t.Fatalf("help does not list run:\n%s", out.String())
	}
}

// TestRunCommandHistory: --history writes the run's history, which parses
// back with as many operations as the JSON reports.
func TestRunCommandHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	var out, errOut bytes.Buffer
	if code := runCommand([]string{"--seed", "4", "--duration", "1s", "--json", "--history", path}, &out, &errOut); code != exitPass {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var m struct {
		Ops struct{ Total int } `json:"ops"`
	}
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := properties.ParseHistory(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Ops) == 0 || len(h.Ops) != m.Ops.Total {
		t.Fatalf("history has %d ops, JSON says %d", len(h.Ops), m.Ops.Total)
	}
}
