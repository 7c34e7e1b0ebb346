package tla

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/modeltrace"
)

// The hand-written traces below follow the model's rules as README.md
// states them (quorums of 2 of 3 brokers, raft's election restriction,
// apply only below the commit mark, answer only after apply), not the
// validator's code.

const tgroup = 2

// commitIf is a client's commit_if expecting offset 0 of scope "acme".
var commitIf = modeltrace.Write{Tenant: "acme", Kind: modeltrace.KindCommitIf, Conditional: true, Expected: 0, Ops: 1, Digest: 0xabc,
	StateOps: []modeltrace.StateOp{{Key: "k", Value: 0x5}}}

const tproposal = 0xd1

// goodTrace is one commit_if through three brokers (booted with
// atomic_commit finalized): b1 wins term 2 with b2's vote, proposes its empty entry and the client's commit_if, b2
// stores both, b1 commits (a quorum: b1 and b2), applies, answers the
// client; b2 learns the commit mark and applies too.
func goodTrace() []modeltrace.Step {
	boot := func(b uint64) modeltrace.Step {
		return modeltrace.Step{Kind: modeltrace.Restart, Broker: b, Group: tgroup, Index: 1, Entries: []modeltrace.Entry{{Term: 1}}, CommitMark: 1, Applied: 1, Finalized: true}
	}
	w := commitIf
	return []modeltrace.Step{
		boot(1), boot(2), boot(3),
		{Kind: modeltrace.Vote, Broker: 1, Group: tgroup, Term: 2, Candidate: 1},
		{Kind: modeltrace.Vote, Broker: 2, Group: tgroup, Term: 2, Candidate: 1},
		{Kind: modeltrace.Promote, Broker: 1, Group: tgroup, Term: 2},
		{Kind: modeltrace.Persist, Broker: 1, Group: tgroup, Term: 2, Index: 2, Entries: []modeltrace.Entry{{Term: 2}}},
		{Kind: modeltrace.Request, Broker: 1, Group: tgroup, Term: 2, Digest: tproposal, Client: 9, ReqID: 1, Asked: &w, Proposed: &w},
		{Kind: modeltrace.Persist, Broker: 1, Group: tgroup, Term: 2, Index: 3, Entries: []modeltrace.Entry{{Term: 2, Digest: tproposal}}},
		{Kind: modeltrace.Persist, Broker: 2, Group: tgroup, Term: 2, Index: 2, Entries: []modeltrace.Entry{{Term: 2}, {Term: 2, Digest: tproposal}}},
		{Kind: modeltrace.Commit, Broker: 1, Group: tgroup, Index: 3},
		{Kind: modeltrace.Apply, Broker: 1, Group: tgroup, Index: 2, Term: 2},
		{Kind: modeltrace.Apply, Broker: 1, Group: tgroup, Index: 3, Term: 2, Digest: tproposal, Outcome: modeltrace.OutcomeWritten, Offset: 0},
		{Kind: modeltrace.Answer, Broker: 1, Client: 9, ReqID: 1, Outcome: modeltrace.OutcomeWritten, Offset: 0},
		{Kind: modeltrace.Commit, Broker: 2, Group: tgroup, Index: 3},
		{Kind: modeltrace.Apply, Broker: 2, Group: tgroup, Index: 2, Term: 2},
		{Kind: modeltrace.Apply, Broker: 2, Group: tgroup, Index: 3, Term: 2, Digest: tproposal, Outcome: modeltrace.OutcomeWritten, Offset: 0},
	}
}

// validate runs steps through a fresh validator of three brokers.
func validate(steps []modeltrace.Step) TraceResult {
	v := NewTraceValidator(3)
	modeltrace.Replay(steps, v)
	return v.Result()
}

func TestTraceValidatorAcceptsModelSteps(t *testing.T) {
	res := validate(goodTrace())
	if !res.Valid || res.Steps != len(goodTrace()) {
		t.Fatalf("valid trace: %+v %v", res, res.Rejection)
	}
}

// move returns steps with step from moved to position to (0-based).
func move(steps []modeltrace.Step, from, to int) []modeltrace.Step {
	s := steps[from]
	out := append(append([]modeltrace.Step(nil), steps[:from]...), steps[from+1:]...)
	return append(out[:to], append([]modeltrace.Step{s}, out[to:]...)...)
}

// TestTraceValidatorRejectsHandEdits: each edit breaks one rule of the
// model; the rejection names the edited step and its action.
func TestTraceValidatorRejectsHandEdits(t *testing.T) {
	cases := []struct {
		name  string
		edit  func([]modeltrace.Step) []modeltrace.Step
		step  int
		text  string
		cause string
	}{
		{"commit mark moved before the quorum stores the entry", func(s []modeltrace.Step) []modeltrace.Step { return move(s, 10, 9) },
			10, "Commit broker 1 group 2: commit mark 3", "no quorum"},
		{"answer reordered before the apply", func(s []modeltrace.Step) []modeltrace.Step { return move(s, 13, 12) },
			13, "Answer broker 1", "applied no entry"},
		{"apply reordered before the commit mark", func(s []modeltrace.Step) []modeltrace.Step { return move(s, 11, 10) },
			11, "Apply broker 1 group 2: entry 2", "not committed"},
		{"follower applies before learning the commit mark", func(s []modeltrace.Step) []modeltrace.Step { return move(s, 14, 16) },
			15, "Apply broker 2 group 2: entry 2", "not committed"},
		{"promotion without a quorum of votes", func(s []modeltrace.Step) []modeltrace.Step { return append(s[:4:4], s[5:]...) },
			5, "Promote broker 1 group 2: term 2", "only 1 of 3"},
		{"promotion of a broker that never started an election (no Timeout: no vote for itself)", func(s []modeltrace.Step) []modeltrace.Step {
			s[3].Candidate = 3 // b1 votes for b3 instead of itself
			return s
		}, 6, "Promote broker 1 group 2: term 2", "did not vote for itself"},
		{"vote in a term older than one the broker voted in", func(s []modeltrace.Step) []modeltrace.Step {
			old := modeltrace.Step{Kind: modeltrace.Vote, Broker: 2, Group: tgroup, Term: 1, Candidate: 3}
			return append(s[:5:5], append([]modeltrace.Step{old}, s[5:]...)...)
		}, 6, "Vote broker 2 group 2: term 1 for 3", "after voting in the newer term 2"},
		{"commit_if written at an offset it did not expect", func(s []modeltrace.Step) []modeltrace.Step {
			w := commitIf
			w.Expected = 4
			s[7].Asked, s[7].Proposed = &w, &w
			return s
		}, 13, "Apply broker 1 group 2: entry 3", "the model gives refused at 0"},
		{"leader proposes another write than the client's", func(s []modeltrace.Step) []modeltrace.Step {
			w := commitIf
			w.Conditional, w.Kind = false, modeltrace.KindCommit
			s[7].Proposed = &w
			return s
		}, 8, "Request broker 1", "not the client's write"},
		{"follower stores an entry no leader sent", func(s []modeltrace.Step) []modeltrace.Step {
			s[9].Entries = []modeltrace.Entry{{Term: 2}, {Term: 2, Digest: 0xbad}}
			return s
		}, 10, "Persist broker 2 group 2: entries 2..3", "differs from what its leader sent"},
		{"committed entry overwritten by an entry of a term no one leads", func(s []modeltrace.Step) []modeltrace.Step {
			return append(s, modeltrace.Step{Kind: modeltrace.Persist, Broker: 2, Group: tgroup, Term: 3, Index: 3, Entries: []modeltrace.Entry{{Term: 3}}})
		}, 18, "Persist broker 2 group 2: entries 3..3", "no broker leads term 3"},
		{"commit mark 0 (a malformed step: refused, no panic)", func(s []modeltrace.Step) []modeltrace.Step {
			s[0].CommitMark, s[0].Applied = 0, 0
			s[10].Index = 0
			return s
		}, 11, "Commit broker 1 group 2: commit mark 0", "outside the stored log"},
	}
	for _, c := range cases {
		res := validate(c.edit(goodTrace()))
		if res.Valid {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		r := res.Rejection
		if r.Step != c.step || !strings.HasPrefix(r.Text, c.text) || !strings.Contains(r.Reason, c.cause) || !strings.Contains(r.Error(), string(TraceNotInModel)) {
			t.Errorf("%s: rejected as %v; want step %d %q because %q", c.name, r, c.step, c.text, c.cause)
		}
	}
}

// TestTraceValidatorCompactionAndSnapshots: after goodTrace, b1 restarts
// from a store compacted at index 3 (its applied index), and b3, which
// stored nothing, installs the leader's snapshot of the committed prefix
// 1..3 (one record of scope acme); both follow the model. Each edit breaks
// one rule and is refused at that step.
func TestTraceValidatorCompactionAndSnapshots(t *testing.T) {
	acme := []modeltrace.ScopeNext{{Tenant: "acme", Next: 1}}
	restart := modeltrace.Step{Kind: modeltrace.Restart, Broker: 1, Group: tgroup, Index: 3, Entries: []modeltrace.Entry{{Term: 2}}, CommitMark: 3, Applied: 3, Scopes: acme, Finalized: true}
	snap := modeltrace.Step{Kind: modeltrace.Snapshot, Broker: 3, Group: tgroup, Index: 3, Term: 2, Scopes: acme}
	n := len(goodTrace())
	if res := validate(append(goodTrace(), restart, snap)); !res.Valid {
		t.Fatalf("compacted restart and snapshot refused: %v", res.Rejection)
	}
	cases := []struct {
		name  string
		edit  func(r, s *modeltrace.Step)
		step  int
		cause string
	}{
		{"compaction point with another term", func(r, s *modeltrace.Step) { r.Entries[0].Term = 1 }, n + 1, "has term 1"},
		{"compaction point past the log b3 held", func(r, s *modeltrace.Step) { r.Broker = 3 }, n + 1, "an entry the broker held"},
		{"snapshot of an uncommitted index", func(r, s *modeltrace.Step) { s.Index = 4 }, n + 2, "no committed entry"},
		{"snapshot with the wrong term", func(r, s *modeltrace.Step) { s.Term = 1 }, n + 2, "no committed entry"},
		{"snapshot whose scope lost its record", func(r, s *modeltrace.Step) { s.Scopes = nil }, n + 2, "writes records in 1"},
		{"snapshot on a broker already past it", func(r, s *modeltrace.Step) { s.Broker = 2 }, n + 2, "not past the commit mark"},
	}
	for _, c := range cases {
		r, s := restart, snap
		r.Entries = append([]modeltrace.Entry(nil), restart.Entries...)
		c.edit(&r, &s)
		res := validate(append(goodTrace(), r, s))
		if res.Valid || res.Rejection.Step != c.step || !strings.Contains(res.Rejection.Reason, c.cause) {
			t.Errorf("%s: %+v; want step %d refused because %q", c.name, res.Rejection, c.step, c.cause)
		}
	}
}
