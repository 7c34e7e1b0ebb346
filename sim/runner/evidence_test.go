package runner

import (
	"regexp"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/faultplan"
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
		got := ids(evidenceOf(c.msg, wholeLookup{h}))
		if len(got) != len(c.want) {
			t.Fatalf("%q: evidence %v, want %v", c.msg, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("%q: evidence %v, want %v", c.msg, got, c.want)
			}
		}
	}
	e := evidenceOf(cases[1].msg, wholeLookup{h})[0]
	if e.Client != 2 || e.Offset != 7 || len(e.Brokers) != 1 || e.Brokers[0] != 2 || !strings.Contains(e.String(), "client 2 commit") {
		t.Fatalf("evidence %+v: %s", e, e)
	}
}

// TestSummaryNamesInvariantOnce: two violations of one invariant print
// one line naming it once, with the earliest finding's time, operations
// and scope and the findings of both counted; another invariant gets its
// own line, earliest first; a long text is cut within the line's cap.
func TestSummaryNamesInvariantOnce(t *testing.T) {
	ev := []Evidence{{Op: 4, Client: 1, Kind: "commit", Scope: "s/n/x/0", Outcome: "ok", InvokeNs: 1e9, CompleteNs: 2e9, Offset: 7}}
	vs := []Violation{
		{Invariant: "A", First: "A: op 4 was late", Findings: 2, Evidence: ev, Scope: "s/n/x/0", AtNs: 2e9, When: WhenOperations},
		{Invariant: "B", First: "scope s/n/x/1: B: " + strings.Repeat("x", 500) + "\nsecond line", Findings: 1, Scope: "s/n/x/1", AtNs: 9e9, When: WhenEnd},
		{Invariant: "A", First: "A: op 9 was later", Findings: 3, AtNs: 5e9, When: WhenOperations},
	}
	var b strings.Builder
	writeViolations(&b, vs)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 || lines[0] != "violation A at 2.000 s (5 findings; op 4 on s/n/x/0): op 4 was late" ||
		!strings.HasPrefix(lines[1], "violation B at 9.000 s (end checks; on s/n/x/1): xxx") || len(lines[1]) != SummaryLineLenMax ||
		!strings.HasSuffix(lines[1], "…") || strings.Contains(lines[1], "second") {
		t.Fatalf("summary:\n%s", b.String())
	}
}

// TestSettleFirsts: a violation's first is its earliest finding by the
// operations each names (the check's own order aside): op 3, answered at
// 20 ns, before op 5 at 40; a replica finding naming a scope and an
// offset rests on the write acknowledged there; one naming nothing is
// found at the run's end; one seen during the run keeps its time and its
// first sighting. The violations keep their check order.
func TestSettleFirsts(t *testing.T) {
	sc := felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "s", Shard: 0}
	h := &properties.History{Ops: []properties.HistoryOp{
		{ID: 3, Client: 1, Kind: properties.HistoryStateGet, Scope: sc, Outcome: properties.OutcomeOK, InvokeNs: 10, CompleteNs: 20},
		{ID: 5, Client: 2, Kind: properties.HistoryCommit, Scope: sc, Record: &felix.Record{Event: felix.EventPublish, Payload: []byte("p")},
			Outcome: properties.OutcomeOK, Offset: 7, InvokeNs: 30, CompleteNs: 40},
	}}
	vs := []Violation{
		{Invariant: "A", texts: []string{"op 5 landed late", "op 3 read stale"}, count: 9},
		{Invariant: "B", texts: []string{`scope acme/orders/s/0: B: reader at broker-1 saw event "" at offset 7`}, count: 1},
		{Invariant: "C", texts: []string{"state differs"}, count: 1},
		{Invariant: "D", texts: []string{"term went back", "later"}, count: 2, AtNs: 15, When: WhenDuring},
	}
	settleFirsts(vs, wholeLookup{h}, 900)
	want := []struct {
		inv, first string
		at         int64
		when       string
		ops        []uint64
		findings   int
	}{
		{"A", "op 3 read stale", 20, WhenOperations, []uint64{3}, 9},
		{"B", `scope acme/orders/s/0: B: reader at broker-1 saw event "" at offset 7`, 40, WhenOperations, []uint64{5}, 1},
		{"C", "state differs", 900, WhenEnd, nil, 1},
		{"D", "term went back", 15, WhenDuring, nil, 2},
	}
	for i, w := range want {
		v := vs[i]
		var ops []uint64
		for _, e := range v.Evidence {
			ops = append(ops, e.Op)
		}
		if string(v.Invariant) != w.inv || v.First != w.first || v.AtNs != w.at || v.When != w.when || len(ops) != len(w.ops) ||
			(len(ops) > 0 && ops[0] != w.ops[0]) || v.Findings != w.findings {
			t.Errorf("violation %d: %s first %q at %d (%s), ops %v, %d findings; want %+v", i, v.Invariant, v.First, v.AtNs, v.When, ops, v.Findings, w)
		}
	}
	if vs[0].Scope != "acme/orders/s/0" || vs[1].Scope != "acme/orders/s/0" {
		t.Errorf("scopes %q, %q", vs[0].Scope, vs[1].Scope)
	}
	var order []string
	for _, f := range FirstFindings(vs) {
		order = append(order, string(f.Invariant))
	}
	if strings.Join(order, ",") != "D,A,B,C" {
		t.Errorf("first findings in order %v, want earliest first: D,A,B,C", order)
	}
}

// TestSummaryTimesInSeconds: a replaced broker's and a stream change's
// times are in seconds (the "at 29477048462 ns"), and no line of
// the summary but the reproduce command runs past SummaryLineLenMax.
func TestSummaryTimesInSeconds(t *testing.T) {
	r := &Result{Options: Options{Brokers: 3, Streams: 1, Shards: 4, Faults: FaultSet{}}, Plan: &faultplan.Plan{},
		Replaced:      []Replacement{{Old: 3, New: 10, AtNs: 29477048462, DoneNs: 31000000000}},
		StreamChanges: []StreamChange{{Deleted: true, AtNs: 5e9, DoneNs: 0, Generation: 2}},
		Violations:    []Violation{{Invariant: "LinearizableWrite", First: strings.Repeat("long ", 100), Findings: 1, AtNs: 1e9, When: WhenOperations}}}
	s := r.Summary()
	for _, want := range []string{"replaced broker 3 by 10 at 29.477 s (disk replaced), membership done at 31.000 s", "the last a delete=true at 5.000 s, not done (generation 2)"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	for _, line := range strings.Split(s, "\n") {
		if len(line) > SummaryLineLenMax && !strings.HasPrefix(line, "reproduce: ") {
			t.Errorf("a line of %d bytes: %s", len(line), line)
		}
		if regexp.MustCompile(`\d{7,} ns`).MatchString(line) {
			t.Errorf("a time in raw nanoseconds: %s", line)
		}
	}
}
