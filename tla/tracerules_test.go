package tla

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/properties"
)

// The rules of issue 25's item 7, each shown on goodTrace (or readTrace,
// goodTrace with reads) broken in the one way the rule exists to catch:
// terms never go back across Vote, Promote and Request; every Apply of an
// index gives what the first gave; reads see what the model's readers see
// (NoPartialCommit, VersionIsOffset, StateMatchesLog); an acknowledged
// write is never lost (CommittedNeverLost). The expectations come from
// the model's statements in FelixAtomicCommit.tla, not from the code.

// readTrace is goodTrace (commit_if putting k = 0x5, written at offset 0
// of acme by entry 3) and then two reads: b1 begins client 8's read of k
// and serves it at read index 3 (the answered write's), finding 0x5 at
// version 0; b2 serves a subscriber offset 0, the whole record 0xabc.
func readTrace() []modeltrace.Step {
	return append(goodTrace(),
		readStart(1, 8, 1, "k"),
		modeltrace.Step{Kind: modeltrace.StateRead, Broker: 1, Group: tgroup, Client: 8, ReqID: 1, Tenant: "acme", Key: "k", Applied: 3, ReadIndex: 3, Found: true, Digest: 0x5, Offset: 0},
		modeltrace.Step{Kind: modeltrace.SubscriberRead, Broker: 2, Group: tgroup, Tenant: "acme", Applied: 3, Offset: 0, Records: []uint64{commitIf.Digest}},
	)
}

// readStart is broker b beginning client's state read req of key k of
// scope acme.
func readStart(b, client, req uint64, k string) modeltrace.Step {
	return modeltrace.Step{Kind: modeltrace.ReadStart, Broker: b, Group: tgroup, Client: client, ReqID: req, Tenant: "acme", Key: k}
}

// insert returns steps with s inserted at position at (0-based).
func insert(steps []modeltrace.Step, at int, s ...modeltrace.Step) []modeltrace.Step {
	out := append([]modeltrace.Step(nil), steps[:at]...)
	out = append(out, s...)
	return append(out, steps[at:]...)
}

// ruleCase is one broken trace and where and why it must be rejected.
type ruleCase struct {
	name  string
	steps []modeltrace.Step
	step  int
	// invariant is the model's invariant the state after the step breaks
	// ("": a step no action explains, TraceNotInModel).
	invariant properties.InvariantName
	cause     string
}

func checkRuleCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, c := range cases {
		res := validate(c.steps)
		if res.Valid {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		r := res.Rejection
		want := c.invariant
		if want == "" {
			want = TraceNotInModel
		}
		if r.Step != c.step || r.Invariant != c.invariant || r.Violated() != want || !strings.Contains(r.Reason, c.cause) || !strings.HasPrefix(r.Error(), string(want)+":") {
			t.Errorf("%s: rejected as %v; want step %d, %s, because %q", c.name, r, c.step, want, c.cause)
		}
	}
}

func TestTraceValidatorAcceptsReads(t *testing.T) {
	if res := validate(readTrace()); !res.Valid || res.Steps != len(readTrace()) {
		t.Fatalf("reads of goodTrace refused: %+v %v", res, res.Rejection)
	}
}

// TestTermsNeverGoBack: a broker that voted in term 3 does not then lead
// term 2; one that led term 2 does not then vote in term 1 nor propose in
// it.
func TestTermsNeverGoBack(t *testing.T) {
	vote3 := modeltrace.Step{Kind: modeltrace.Vote, Broker: 1, Group: tgroup, Term: 3, Candidate: 3}
	checkRuleCases(t, []ruleCase{
		{"leads term 2 after voting in term 3", insert(goodTrace(), 5, vote3), 7, "", "leads term 2 after voting in the newer term 3"},
		{"votes in term 1 after leading term 2", append(goodTrace(), modeltrace.Step{Kind: modeltrace.Vote, Broker: 1, Group: tgroup, Term: 1, Candidate: 2}),
			18, "", "after voting in the newer term 2"},
		{"proposes in term 1 after leading term 2", append(goodTrace(), modeltrace.Step{Kind: modeltrace.Request, Broker: 1, Group: tgroup, Term: 1, Digest: 0xd9, Client: 9, ReqID: 2, Asked: &commitIf, Proposed: &commitIf}),
			18, "", "proposes in term 1 after voting in the newer term 2"},
	})
	// Without the vote in term 3 the same promotion is taken.
	if res := validate(insert(goodTrace(), 5, modeltrace.Step{Kind: modeltrace.Vote, Broker: 3, Group: tgroup, Term: 3, Candidate: 3})); !res.Valid {
		t.Errorf("another broker's vote in term 3 refused b1's promotion: %v", res.Rejection)
	}
}

// TestApplyOutcomesAgree: a follower that applies as an error (or at
// another offset) the write its leader wrote is refused at that apply, not
// at its next write.
func TestApplyOutcomesAgree(t *testing.T) {
	asError := goodTrace()
	asError[16].Outcome, asError[16].Offset = modeltrace.OutcomeError, 0
	emptyElsewhere := goodTrace()
	emptyElsewhere[15].Offset = 4 // the empty entry's outcome: none at 0 on b1
	checkRuleCases(t, []ruleCase{
		{"follower applies as an error a write the leader wrote", asError, 17, "", "broker 1 applied it as written at 0"},
		{"follower applies the empty entry as none at offset 4", emptyElsewhere, 16, "", "broker 1 applied it as none (first offset 0)"},
	})
}

// TestReadRules: what a read saw is judged against the records its broker
// applied; a read made in another state than the broker's is refused.
func TestReadRules(t *testing.T) {
	edit := func(j int, f func(s *modeltrace.Step)) []modeltrace.Step {
		steps := readTrace()
		f(&steps[len(steps)-2+j])
		return steps
	}
	n := len(goodTrace()) + 1 // and the read's start
	checkRuleCases(t, []ruleCase{
		{"state read sees another value", edit(0, func(s *modeltrace.Step) { s.Digest = 0x6 }), n + 1, properties.InvariantNoPartialCommit, "leave value 0000000000000005 at version 0"},
		{"state read sees the key absent", edit(0, func(s *modeltrace.Step) { s.Found, s.Digest = false, 0 }), n + 1, properties.InvariantNoPartialCommit, "saw nothing"},
		{"state read at version 1, which no record holds", edit(0, func(s *modeltrace.Step) { s.Offset = 1 }), n + 1, properties.InvariantVersionIsOffset, "no retained record"},
		{"state read served at another applied index", edit(0, func(s *modeltrace.Step) { s.Applied = 2 }), n + 1, "", "served at applied index 2"},
		{"state read of a window past the applied records", edit(0, func(s *modeltrace.Step) { s.First = 2 }), n + 1, "", "first retained offset 2 is past its next offset 1"},
		{"state read claiming a retention point no step set", edit(0, func(s *modeltrace.Step) { s.First = 1 }), n + 1, "", "first retained offset is 0 on broker 1 at applied index 3, not 1"},
		{"subscriber gets a record without its state", edit(1, func(s *modeltrace.Step) { s.Records[0] = 0xab }), n + 2, properties.InvariantNoPartialCommit, "the record written there is 0000000000000abc"},
		{"subscriber gets an offset its broker did not apply", edit(1, func(s *modeltrace.Step) { s.Records = append(s.Records, 0xabc) }), n + 2, properties.InvariantNoPartialCommit, "applied offsets below 1 only"},
		{"b3, which applied nothing, serves offset 0", edit(1, func(s *modeltrace.Step) { s.Broker, s.Applied = 3, 1 }), n + 2, properties.InvariantNoPartialCommit, "applied offsets below 0 only"},
	})
	// StateMatchesLog: a second commit puts the same value at offset 1; a
	// read at version 0 shows the right value from the older record.
	again := modeltrace.Write{Tenant: "acme", Kind: modeltrace.KindCommit, Ops: 1, Digest: 0xabd, StateOps: []modeltrace.StateOp{{Key: "k", Value: 0x5}}}
	steps := append(goodTrace(),
		modeltrace.Step{Kind: modeltrace.Request, Broker: 1, Group: tgroup, Term: 2, Digest: 0xd2, Client: 9, ReqID: 2, Asked: &again, Proposed: &again},
		modeltrace.Step{Kind: modeltrace.Persist, Broker: 1, Group: tgroup, Term: 2, Index: 4, Entries: []modeltrace.Entry{{Term: 2, Digest: 0xd2}}},
		modeltrace.Step{Kind: modeltrace.Persist, Broker: 2, Group: tgroup, Term: 2, Index: 4, Entries: []modeltrace.Entry{{Term: 2, Digest: 0xd2}}},
		modeltrace.Step{Kind: modeltrace.Commit, Broker: 1, Group: tgroup, Index: 4},
		modeltrace.Step{Kind: modeltrace.Apply, Broker: 1, Group: tgroup, Index: 4, Term: 2, Digest: 0xd2, Outcome: modeltrace.OutcomeWritten, Offset: 1},
		readStart(1, 8, 2, "k"),
		modeltrace.Step{Kind: modeltrace.StateRead, Broker: 1, Group: tgroup, Client: 8, ReqID: 2, Tenant: "acme", Key: "k", Applied: 4, ReadIndex: 4, Found: true, Digest: 0x5, Offset: 1},
	)
	if res := validate(steps); !res.Valid {
		t.Fatalf("the read of the second put refused: %v", res.Rejection)
	}
	steps[len(steps)-1].Offset = 0
	checkRuleCases(t, []ruleCase{{"state read at the older put's version", steps, len(steps), properties.InvariantStateMatchesLog, "the last record it applied that touches the key is at offset 1"}})
}

// TestCommittedNeverLost: a write acknowledged as written stays on a
// quorum of brokers' stored logs, and every leader of the term that
// committed it or a later one holds it.
func TestCommittedNeverLost(t *testing.T) {
	// b2 holds entry 3 (with b1) until a snapshot of index 2 replaces its
	// log, after the answer: the acknowledged write is on b1 alone.
	snap := modeltrace.Step{Kind: modeltrace.Snapshot, Broker: 2, Group: tgroup, Index: 2, Term: 2}
	// b3 and b2 vote for b3 in term 3 while their logs hold the bootstrap
	// entry only; b2, which may take no append of term 2 after that vote,
	// gains entries 2..3 through a restart instead (a store commit whose
	// round was not seen: Restart does not know the term those entries were
	// taken in); b3, whose log never gains entry 3, is promoted after the
	// write was acknowledged: the election's votes were up to date when
	// cast, so the action takes the step, and the state breaks the
	// invariant.
	vote3 := []modeltrace.Step{
		{Kind: modeltrace.Vote, Broker: 3, Group: tgroup, Term: 3, Candidate: 3},
		{Kind: modeltrace.Vote, Broker: 2, Group: tgroup, Term: 3, Candidate: 3},
	}
	late := insert(goodTrace(), 6, vote3...)
	late[11] = modeltrace.Step{Kind: modeltrace.Restart, Broker: 2, Group: tgroup, Index: 1, CommitMark: 1, Applied: 1, Finalized: true,
		Entries: []modeltrace.Entry{{Term: 1}, {Term: 2}, {Term: 2, Digest: tproposal}}}
	late = append(late, modeltrace.Step{Kind: modeltrace.Promote, Broker: 3, Group: tgroup, Term: 3})
	checkRuleCases(t, []ruleCase{
		{"an acknowledged write left on one broker", insert(goodTrace(), 14, snap), 15, properties.InvariantCommittedNeverLost, "stored by brokers [1] only"},
		{"a leader of a later term without the acknowledged write", late, len(late), properties.InvariantCommittedNeverLost, "broker 3 leads term 3 but its log 1..1 lacks entry 3"},
	})
	// A snapshot that gives b3 the acknowledged write loses nothing; the
	// same snapshot of b2 just before the answer leaves the write the
	// answer acknowledges on b1 alone.
	if res := validate(append(goodTrace(), modeltrace.Step{Kind: modeltrace.Snapshot, Broker: 3, Group: tgroup, Index: 3, Term: 2,
		Scopes: []modeltrace.ScopeNext{{Tenant: "acme", Next: 1}}})); !res.Valid {
		t.Errorf("a snapshot installing the acknowledged write refused: %v", res.Rejection)
	}
	checkRuleCases(t, []ruleCase{{"a write acknowledged after it was left on one broker", insert(goodTrace(), 13, snap), 15, properties.InvariantCommittedNeverLost, "stored by brokers [1] only"}})
}

// staleSuffixTrace: b1 leads term 2 and stores its empty entry and the
// client's commit_if at 2..3; b3, elected in term 3 by votes cast while
// b2 and b3 held the bootstrap entry only, stores its own empty entry at
// 2; b2, which stored nothing since, restarts from a store holding b3's
// entry at 2 and b1's at 3: every entry one a leader sent, the terms
// falling from 3 to 2 (a conflicting suffix the store kept).
func staleSuffixTrace(stored []modeltrace.Entry) []modeltrace.Step {
	w := commitIf
	g := goodTrace()
	return append(g[:3:3],
		modeltrace.Step{Kind: modeltrace.Vote, Broker: 1, Group: tgroup, Term: 2, Candidate: 1},
		modeltrace.Step{Kind: modeltrace.Vote, Broker: 2, Group: tgroup, Term: 2, Candidate: 1},
		modeltrace.Step{Kind: modeltrace.Promote, Broker: 1, Group: tgroup, Term: 2},
		modeltrace.Step{Kind: modeltrace.Request, Broker: 1, Group: tgroup, Term: 2, Digest: tproposal, Client: 9, ReqID: 1, Asked: &w, Proposed: &w},
		modeltrace.Step{Kind: modeltrace.Persist, Broker: 1, Group: tgroup, Term: 2, Index: 2, Entries: []modeltrace.Entry{{Term: 2}, {Term: 2, Digest: tproposal}}},
		modeltrace.Step{Kind: modeltrace.Vote, Broker: 3, Group: tgroup, Term: 3, Candidate: 3},
		modeltrace.Step{Kind: modeltrace.Vote, Broker: 2, Group: tgroup, Term: 3, Candidate: 3},
		modeltrace.Step{Kind: modeltrace.Promote, Broker: 3, Group: tgroup, Term: 3},
		modeltrace.Step{Kind: modeltrace.Persist, Broker: 3, Group: tgroup, Term: 3, Index: 2, Entries: []modeltrace.Entry{{Term: 3}}},
		modeltrace.Step{Kind: modeltrace.Restart, Broker: 2, Group: tgroup, Index: 1, Entries: stored, CommitMark: 1, Applied: 1, Finalized: true},
	)
}

// TestRestartStoredTermsAscend: a store read back with an older leader's
// entry behind a newer one's is refused at the Restart.
func TestRestartStoredTermsAscend(t *testing.T) {
	if res := validate(staleSuffixTrace([]modeltrace.Entry{{Term: 1}, {Term: 3}})); !res.Valid {
		t.Fatalf("b2 restarting with b3's entry refused: %v", res.Rejection)
	}
	checkRuleCases(t, []ruleCase{{"a stored log with term 2 after term 3", staleSuffixTrace([]modeltrace.Entry{{Term: 1}, {Term: 3}, {Term: 2, Digest: tproposal}}),
		13, "", "the stored log has entry 3 of term 2 after entry 2 of term 3"}})
}
