package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = dispatch(args, &o, &e)
	return code, o.String(), e.String()
}

func TestCheckModelMainHolds(t *testing.T) {
	code, out, errOut := runCLI("check-model")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"distinct states: 137512", "depth:           27", "verdict:         holds", "seconds:"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCheckModelVariantJSON(t *testing.T) {
	code, out, errOut := runCLI("check-model", "--variant", "SplitRecords", "--json")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (violation); stderr %s", code, errOut)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	var rep map[string]any
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON value:\n%s", out)
	}
	for _, k := range []string{"config", "distinct_states", "depth", "seconds", "violation"} {
		if _, ok := rep[k]; !ok {
			t.Fatalf("JSON lacks %q: %s", k, out)
		}
	}
	v, ok := rep["violation"].(map[string]any)
	if !ok || v["invariant"] != "NoPartialCommit" {
		t.Fatalf("violation = %v, want NoPartialCommit", rep["violation"])
	}
	if tr, ok := v["trace"].([]any); !ok || len(tr) != 9 || rep["depth"] != float64(9) {
		t.Fatalf("trace %v / depth %v, want 9 steps", v["trace"], rep["depth"])
	}
}

func TestCheckModelFullConfigJSONHasNullViolation(t *testing.T) {
	code, out, _ := runCLI("check-model", "--config", "MCSplitRecordsFull", "--json")
	if code != 0 || !strings.Contains(out, `"violation":null`) || !strings.Contains(out, `"distinct_states":33011`) {
		t.Fatalf("exit %d, out %s", code, out)
	}
}

func TestCheckModelTextShowsTrace(t *testing.T) {
	code, out, _ := runCLI("check-model", "--variant", "PartialApply")
	if code != 1 || !strings.Contains(out, "9: Apply(b1)") || !strings.Contains(out, "violated:        NoPartialCommit") {
		t.Fatalf("exit %d, out:\n%s", code, out)
	}
}

func TestUsageErrors(t *testing.T) {
	cases := [][]string{
		{},
		{"no-such-command"},
		{"check-model", "--bogus"},
		{"check-model", "--config", "NoSuchConfig"},
		{"check-model", "--variant", "Half"},
		{"check-model", "extra"},
	}
	for _, args := range cases {
		code, _, errOut := runCLI(args...)
		if code != exitUsage || errOut == "" {
			t.Fatalf("%q: exit %d, stderr %q; want %d and a message", args, code, errOut, exitUsage)
		}
	}
	code, out, _ := runCLI("help")
	if code != 0 || !strings.Contains(out, "check-model") {
		t.Fatalf("help: exit %d, out %q", code, out)
	}
}
