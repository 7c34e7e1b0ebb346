package tla

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/modeltrace"
)

// The membership traces below follow raft's rules as tla/README.md states
// them (a change takes effect when applied; quorums of the deciding
// broker's voters; one change at a time; a new identity starts empty and
// catches up by snapshot), not the validator's code.

const (
	ccRemove3   = 0xc1
	ccAdd10     = 0xc2
	ccPromote10 = 0xc3
	tplain      = 0xd2
)

// replaceTrace is goodTrace, then broker 3 catches up and is replaced by
// the new identity 10: leader b1 removes 3 (committed by b1 and b2 of
// {1,2,3}), adds 10 as a learner (committed by b1 and b2 of {1,2}), 10
// starts empty and installs b1's snapshot at 5, b1 promotes it, and a
// plain commit is committed by b1 and 10 (2 of {1,2,10}).
func replaceTrace() []modeltrace.Step {
	plain := modeltrace.Write{Tenant: "acme", Kind: modeltrace.KindCommit, Ops: 1, Digest: 0xdef, StateOps: []modeltrace.StateOp{{Key: "k", Value: 0x6}}}
	e := func(d uint64) []modeltrace.Entry { return []modeltrace.Entry{{Term: 2, Digest: d}} }
	persist := func(b, i, d uint64) modeltrace.Step {
		return modeltrace.Step{Kind: modeltrace.Persist, Broker: b, Group: tgroup, Term: 2, Index: i, Entries: e(d)}
	}
	conf := func(b, i, d uint64, voters, learners []uint64) modeltrace.Step {
		return modeltrace.Step{Kind: modeltrace.ApplyConf, Broker: b, Group: tgroup, Index: i, Term: 2, Digest: d, Voters: voters, Learners: learners}
	}
	propose := func(d uint64, typ modeltrace.ChangeType, node uint64) modeltrace.Step {
		return modeltrace.Step{Kind: modeltrace.ProposeConf, Broker: 1, Group: tgroup, Term: 2, Digest: d, Change: &modeltrace.ConfChange{Type: typ, Node: node}}
	}
	commit := func(b, i uint64) modeltrace.Step {
		return modeltrace.Step{Kind: modeltrace.Commit, Broker: b, Group: tgroup, Index: i}
	}
	return append(goodTrace(),
		modeltrace.Step{Kind: modeltrace.Persist, Broker: 3, Group: tgroup, Term: 2, Index: 2, Entries: []modeltrace.Entry{{Term: 2}, {Term: 2, Digest: tproposal}}},
		propose(ccRemove3, modeltrace.Remove, 3), // step 19
		persist(1, 4, ccRemove3), persist(2, 4, ccRemove3), persist(3, 4, ccRemove3),
		commit(1, 4), // step 23
		conf(1, 4, ccRemove3, []uint64{1, 2}, nil),  // step 24
		propose(ccAdd10, modeltrace.AddLearner, 10), // step 25
		persist(1, 5, ccAdd10), persist(2, 5, ccAdd10), persist(3, 5, ccAdd10),
		commit(1, 5),
		conf(1, 5, ccAdd10, []uint64{1, 2}, []uint64{10}), // step 30
		modeltrace.Step{Kind: modeltrace.Restart, Broker: 10, Group: tgroup, Entries: []modeltrace.Entry{{}}},
		modeltrace.Step{Kind: modeltrace.Snapshot, Broker: 10, Group: tgroup, Index: 5, Term: 2, Scopes: []modeltrace.ScopeNext{{Tenant: "acme", Next: 1}}},
		propose(ccPromote10, modeltrace.AddVoter, 10), // step 33
		persist(1, 6, ccPromote10), persist(2, 6, ccPromote10), persist(3, 6, ccPromote10),
		commit(1, 6),
		conf(1, 6, ccPromote10, []uint64{1, 2, 10}, nil), // step 38
		modeltrace.Step{Kind: modeltrace.Request, Broker: 1, Group: tgroup, Term: 2, Digest: tplain, Client: 9, ReqID: 2, Asked: &plain, Proposed: &plain},
		persist(1, 7, tplain),
		persist(10, 6, ccPromote10), // step 41
		persist(10, 7, tplain),      // step 42
		commit(1, 7),                // step 43
		modeltrace.Step{Kind: modeltrace.Apply, Broker: 1, Group: tgroup, Index: 7, Term: 2, Digest: tplain, Outcome: modeltrace.OutcomeWritten, Offset: 1},
		commit(10, 7),
		conf(10, 6, ccPromote10, []uint64{1, 2, 10}, nil),
	)
}

func TestTraceValidatorReplacement(t *testing.T) {
	tr := replaceTrace()
	if res := validate(tr); !res.Valid || res.Steps != len(tr) {
		t.Fatalf("replacement refused: %+v %v", res, res.Rejection)
	}
	cases := []struct {
		name string
		edit func([]modeltrace.Step) []modeltrace.Step
		step int
		text string
		want string
	}{
		{"a conf change applied before it is committed", func(s []modeltrace.Step) []modeltrace.Step { return move(s, 23, 22) }, // steps 24 to 23: move takes 0-based indexes
			23, "ApplyConf broker 1 group 2: entry 4", "not committed"},
		{"a second change proposed before the first is applied", func(s []modeltrace.Step) []modeltrace.Step { return move(s, 24, 23) },
			24, "ProposeConf broker 1 group 2", "not applied yet"},
		{"a commit counted with the removed broker's ack", func(s []modeltrace.Step) []modeltrace.Step {
			s[42-1].Broker = 3 // broker 3, removed, stores entry 7 instead of 10
			return s
		}, 43, "Commit broker 1 group 2: commit mark 7", "only 1 of 3 voters [1 2 10]"},
		{"a commit counted with the learner's ack", func(s []modeltrace.Step) []modeltrace.Step {
			// before promoting 10, b1 proposes the plain commit at 6 and
			// counts b1 and the learner 10
			return append(s[:32], s[39-1], persistOf(s[40-1], 6), persistOf(s[42-1], 6), modeltrace.Step{Kind: modeltrace.Commit, Broker: 1, Group: tgroup, Index: 6})
		}, 36, "Commit broker 1 group 2: commit mark 6", "only 1 of 2 voters [1 2]"},
		{"the applied configuration is not the change's", func(s []modeltrace.Step) []modeltrace.Step {
			s[30-1].Voters = []uint64{1, 2, 10}
			s[30-1].Learners = nil
			return s
		}, 30, "ApplyConf broker 1 group 2: entry 5", "gives voters [1 2] learners [10]"},
		{"a learner starts an election", func(s []modeltrace.Step) []modeltrace.Step {
			return append(s[:32], modeltrace.Step{Kind: modeltrace.Vote, Broker: 10, Group: tgroup, Term: 3, Candidate: 10})
		}, 33, "Vote broker 10 group 2: term 3 for 10", "no voter of its configuration"},
		{"a follower proposes a change", func(s []modeltrace.Step) []modeltrace.Step {
			s[19-1].Broker = 2
			return s
		}, 19, "ProposeConf broker 2 group 2", "which it does not lead"},
		{"a new identity that restarts with a stored log", func(s []modeltrace.Step) []modeltrace.Step {
			s[31-1].Applied = 1
			return s
		}, 31, "Restart broker 10 group 2", "an identity with an empty log"},
	}
	for _, c := range cases {
		tr := replaceTrace()
		res := validate(c.edit(tr))
		if res.Valid {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		r := res.Rejection
		if r.Step != c.step || !strings.HasPrefix(r.Text, c.text) || !strings.Contains(r.Reason, c.want) {
			t.Errorf("%s: rejected as %v; want step %d %q because %q", c.name, r, c.step, c.text, c.want)
		}
	}
}

// TestTraceValidatorElectionCountsOwnVoters: after b1 applied removing
// broker 3, b1 cannot win a term with the votes of itself and 3; with
// the votes of itself and 2 it can.
func TestTraceValidatorElectionCountsOwnVoters(t *testing.T) {
	tr := replaceTrace()[:24]
	vote := func(b, term, c uint64) modeltrace.Step {
		return modeltrace.Step{Kind: modeltrace.Vote, Broker: b, Group: tgroup, Term: term, Candidate: c}
	}
	promote := modeltrace.Step{Kind: modeltrace.Promote, Broker: 1, Group: tgroup, Term: 3}
	if res := validate(append(tr, vote(1, 3, 1), vote(2, 3, 1), promote)); !res.Valid {
		t.Fatalf("election by 1 and 2 of {1,2} refused: %v", res.Rejection)
	}
	res := validate(append(tr, vote(1, 3, 1), vote(3, 3, 1), promote))
	if res.Valid || res.Rejection.Step != 27 || !strings.Contains(res.Rejection.Reason, "only 1 of 2 voters [1 2]") {
		t.Fatalf("election with the removed broker's vote: %+v", res.Rejection)
	}
}

// persistOf is Persist step p moved to index i.
func persistOf(p modeltrace.Step, i uint64) modeltrace.Step {
	p.Index = i
	return p
}
