package runner

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestScopedJudgedAlike: a run whose history the end checks judge a scope
// at a time (the default) reaches the very result of the same run judged
// whole (Options.judgeWhole): the same report, byte for byte in JSON, and
// the same violation messages. Clean seeds and planted defects the end
// checks catch are judged a scope at a time; the defects that write a
// record where another scope's write or nobody's should be (two records
// for one commit, a wrong route) send the run to be judged whole. The
// history and the relay sink's record are spilled 64 at a time, so the
// scopes are read back from disk.
func TestScopedJudgedAlike(t *testing.T) {
	for _, c := range []struct {
		seed   uint64
		defect string
		scoped bool
	}{
		{1, "", true}, {2, "", true},
		{3, "stale-read", true}, {1, "commit-if-at-proposal", true}, {1, "ack-before-quorum", true},
		{1, "timeout-as-failure", true}, {1, "redeliver-acked", true}, {1, "repropose-pending", true},
		{1, "ephemeral-unscoped", true}, {1, "unscoped-outbox", true},
		{1, "lease-unit-slip", true}, {1, "failed-on-copy-refusal", true}, {2, "commands-not-leader-after-propose", true},
		{1, "live-read-waits-for-batch", true},
		{1, "commit-as-two-records", false}, {1, "wrong-route-hash", false},
	} {
		o := Options{Seed: c.seed, DurationNs: 10e9, historyHeldOps: 64, sinkHeldMax: 64}
		if c.defect != "" {
			d, err := ParseDefects(c.defect)
			if err != nil {
				t.Fatal(err)
			}
			o.Defects = d
		}
		var scopedRun *run
		scoped, err := runWith(o, func(r *run) { scopedRun = r })
		if err != nil {
			t.Fatal(err)
		}
		o.judgeWhole = true
		whole, err := runWith(o, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := scopedRun.judged != nil && scopedRun.judged.scoped; got != c.scoped {
			t.Fatalf("seed %d %s: judged a scope at a time %v, want %v", c.seed, c.defect, got, c.scoped)
		}
		if c.defect != "" && whole.OK() {
			t.Fatalf("seed %d with %s passed: the comparison would not cover a failing verdict", c.seed, c.defect)
		}
		if a, b := resultJSON(t, scoped), resultJSON(t, whole); a != b || violationLines(scoped) != violationLines(whole) {
			t.Fatalf("seed %d %s: judged a scope at a time:\n%s\njudged whole:\n%s", c.seed, c.defect, violationLines(scoped), violationLines(whole))
		}
	}
}

// resultJSON is r in JSON, field by field but its options (which hold a
// callback), with its coverage as a map: everything a run reports.
func resultJSON(t *testing.T, r *Result) string {
	t.Helper()
	fields := map[string]any{"Coverage": r.Coverage.Map()}
	v := reflect.ValueOf(*r)
	for i := 0; i < v.NumField(); i++ {
		if f := v.Type().Field(i).Name; f != "Options" && f != "Coverage" {
			fields[f] = v.Field(i).Interface()
		}
	}
	b, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
