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
		{"op 8 (state_get k) returned version 7, older than version 9 that op 5 returned; op 3 too", []uint64{8, 5}},
		{`write "{\"event\":\"a\"}" was acknowledged at offset 7, but replica broker-2 holds event "{\"event\":\"b\"}" there`, []uint64{5, 9}},
		{"op 77 is not in the history", nil},
		{"scope x: state differs", nil},
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
// violation line, a count of the rest and the evidence of the first that
// has any.
func TestSummaryNamesInvariantOnce(t *testing.T) {
	vs := []Violation{{Invariant: "A", Message: "m1"}, {Invariant: "B", Message: "b"}, {Invariant: "A", Message: "m2",
		Evidence: []Evidence{{Op: 4, Client: 1, Kind: "commit", Outcome: "ok", InvokeNs: 1e9, CompleteNs: 2e9}}}}
	var b strings.Builder
	writeViolations(&b, vs)
	out := b.String()
	if strings.Count(out, "violation A:") != 1 || !strings.Contains(out, "1 more finding(s) of A") || !strings.Contains(out, "op 4: client 1 commit") ||
		strings.Index(out, "violation B") < strings.Index(out, "op 4") {
		t.Fatalf("summary:\n%s", out)
	}
}
