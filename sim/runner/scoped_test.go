package runner

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestScopedJudgedAlike: a run whose history the end checks judge a part
// at a time (the default) reaches the very result of the same run judged
// whole (Options.judgeWhole): the same report, byte for byte in JSON, and
// the same violation messages. Its parts hold a scope each (partOpsMax 1),
// a few scopes (600 operations), or the default's (up to 8,192
// operations: a 10 s run's whole history, one part). Clean seeds and
// planted defects the end checks catch are judged in parts; the defects
// that write a record where another scope's write or nobody's should be
// (two records for one commit, a wrong route, a record no proposal of its
// group carries) send the run to be judged whole. The history, the relay
// sink's record and the ledger's steps are spilled 64 at a time, so the
// parts are read back from disk.
func TestScopedJudgedAlike(t *testing.T) {
	for _, c := range []struct {
		seed       uint64
		defect     string
		scoped     bool
		partOpsMax int
	}{
		{1, "", true, 1}, {2, "", true, 0}, {3, "", true, 600},
		{3, "stale-read", true, 1}, {3, "stale-read", true, 600}, {1, "commit-if-at-proposal", true, 1},
		{1, "timeout-as-failure", true, 1}, {1, "redeliver-acked", true, 600}, {1, "repropose-pending", true, 1},
		{1, "ephemeral-unscoped", true, 1}, {1, "unscoped-outbox", true, 1}, {2, "unscoped-outbox", true, 600},
		{1, "lease-unit-slip", true, 1}, {1, "failed-on-copy-refusal", true, 600}, {3, "commands-not-leader-after-propose", true, 1},
		{1, "live-read-waits-for-batch", true, 1},
		{1, "commit-as-two-records", false, 1}, {1, "wrong-route-hash", false, 1}, {1, "ack-before-quorum", false, 1},
	} {
		o := Options{Seed: c.seed, DurationNs: 10e9, historyHeldOps: 64, sinkHeldMax: 64, ledgerHeldMax: 64, partOpsMax: c.partOpsMax}
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
			t.Fatalf("seed %d %s (parts of %d): judged in parts %v, want %v", c.seed, c.defect, c.partOpsMax, got, c.scoped)
		}
		if c.defect != "" && whole.OK() {
			t.Fatalf("seed %d with %s passed: the comparison would not cover a failing verdict", c.seed, c.defect)
		}
		if a, b := resultJSON(t, scoped), resultJSON(t, whole); a != b || violationLines(scoped) != violationLines(whole) {
			t.Fatalf("seed %d %s (parts of %d): judged in parts:\n%s\njudged whole:\n%s", c.seed, c.defect, c.partOpsMax, violationLines(scoped), violationLines(whole))
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

// TestCleanRunsJudgedInParts: passing runs under every fault kind and the
// operator's actions, a scope to a part, are all judged in parts: no
// record of theirs crosses scopes, so none falls back to being judged
// whole (which would cost a long run its bounded memory).
func TestCleanRunsJudgedInParts(t *testing.T) {
	faults, err := ParseFaults("all,operator")
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 8; seed++ {
		var r *run
		res, err := runWith(Options{Seed: seed, DurationNs: 10e9, Faults: faults, partOpsMax: 1, ledgerHeldMax: 64}, func(b *run) { r = b })
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK() {
			t.Fatalf("seed %d: %s", seed, res.Summary())
		}
		if r.judged == nil || !r.judged.scoped {
			t.Fatalf("seed %d passed, judged whole", seed)
		}
	}
}
