package runner

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
)

// TestEvidenceOf: a history check's message yields the operations it
// names, in its order, at most EvidenceMax; a replica check's message
// yields the writes whose payloads it quotes (the ok one of a retried
// pair); a message naming nothing known yields nothing.
func TestEvidenceOf(t *testing.T) {
	rec := func(p string) *felix.Record { return &felix.Record{Event: felix.EventPublish, Payload: []byte(p)} }
	h := &properties.History{Ops: []properties.HistoryOp{
		{ID: 3, Client: 1, Kind: properties.HistoryCommit, Record: rec(`{"event":"a"}`), Outcome: properties.OutcomeUnknown, InvokeNs: 10, CompleteNs: 20},
		{ID: 5, Client: 2, Kind: properties.HistoryCommit, Record: rec(`{"event":"a"}`), Outcome: properties.OutcomeOK, Offset: 7, InvokeNs: 30, CompleteNs: 40},
		{ID: 8, Client: 0, Kind: properties.HistoryStateGet, Key: "k", Outcome: properties.OutcomeOK, Version: 7, InvokeNs: 50, CompleteNs: 60},
		{ID: 9, Client: 0, Kind: properties.HistoryCommit, Record: rec(`{"event":"b"}`), Outcome: properties.OutcomeOK, Offset: 7, InvokeNs: 1, CompleteNs: 2},
	}}
	ids := func(es []Evidence) []uint64 {
		var out []uint64
		for _, e := range es {
			out = append(out, e.Op)
		}
		return out
	}
	cases := []struct {
		msg  string
		want []uint64
	}{
		{"op 8 (state_get k) returned version 7, older than version 9 that op 5 returned; op 3 too", []uint64{8, 5, 3}},
		{`write "{\"event\":\"a\"}" was acknowledged at offset 7, but replica broker-2 holds event "{\"event\":\"b\"}" there`, []uint64{5, 9}},
		{"op 77 is not in the history", nil},
		{"scope x: state differs", nil},
		{"op 9, then op 8, op 5 and op 3: four named, three kept", []uint64{9, 8, 5}},
	}
	for _, c := range cases {
		got := ids(evidenceOf(c.msg, h))
		if len(got) != len(c.want) {
			t.Fatalf("%q: evidence %v, want %v", c.msg, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("%q: evidence %v, want %v", c.msg, got, c.want)
			}
		}
	}
	e := evidenceOf(cases[1].msg, h)[0]
	if e.Client != 2 || e.Offset != 7 || len(e.Brokers) != 1 || e.Brokers[0] != 2 || !strings.Contains(e.String(), "client 2 commit") {
		t.Fatalf("evidence %+v: %s", e, e)
	}
}

// TestSummaryNamesInvariantOnce: two findings of one invariant print one
// line naming it once, with its time, the count of findings and the
// evidence of the first finding that has any; another invariant gets its
// own line, in first-failure order; a long message is cut on its line.
func TestSummaryNamesInvariantOnce(t *testing.T) {
	vs := []Violation{{Invariant: "A", Message: "m1", AtNs: 3_250_000_000, When: WhenOperations},
		{Invariant: "B", Message: "B: " + strings.Repeat("x", 500) + "\nsecond line", AtNs: 9e9, When: WhenEnd},
		{Invariant: "A", Message: "m2", Evidence: []Evidence{{Op: 4, Client: 1, Kind: "commit", Scope: "s/n/x/0", Outcome: "ok", InvokeNs: 1e9, CompleteNs: 2e9, Offset: 7}}}}
	var b strings.Builder
	writeViolations(&b, vs)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "violation A at 3.250 s (2 findings): op 4 (client 1 commit on s/n/x/0, ok at 2.000 s, offset 7) — m1") ||
		!strings.HasPrefix(lines[1], "violation B at 9.000 s (end checks): xxx") || len(lines[1]) > 250 || strings.Contains(lines[1], "second") {
		t.Fatalf("summary:\n%s", b.String())
	}
}

// TestDateViolations: an end-check finding is dated by the latest time
// its evidence operations were invoked or answered, or at the run's end
// without any; a finding seen during the run keeps its time.
func TestDateViolations(t *testing.T) {
	vs := []Violation{{Invariant: "A", Evidence: []Evidence{{InvokeNs: 1e9, CompleteNs: 4e9}, {InvokeNs: 5e9}}},
		{Invariant: "B"}, {Invariant: "C", AtNs: 2e9, When: WhenDuring}}
	dateViolations(vs, 9e9)
	if vs[0].AtNs != 5e9 || vs[0].When != WhenOperations || vs[1].AtNs != 9e9 || vs[1].When != WhenEnd || vs[2].AtNs != 2e9 || vs[2].When != WhenDuring {
		t.Fatalf("dated: %+v", vs)
	}
}
