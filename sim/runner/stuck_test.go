package runner

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/node"
)

// TestWhyStuckHandMade: hand-made views of a stuck group, each naming
// what a reader needs: with no leader, every broker's role and term (or
// why it is not running); with a leader, its commit against its last
// index and each lagging member with its reason; members that hold the
// leader's last index are not blamed.
func TestWhyStuckHandMade(t *testing.T) {
	follower := func(b string, term, vote, lead, last, commit uint64) replicaStatus {
		return replicaStatus{broker: b, running: true, st: node.GroupStatus{Group: 3, Role: "StateFollower", Term: term, Vote: vote, Lead: lead, LastIndex: last, Commit: commit}}
	}
	leader := replicaStatus{broker: "broker-2", running: true, st: node.GroupStatus{Group: 3, Role: "StateLeader", Term: 7, Vote: 2, Lead: 2, Commit: 140, LastIndex: 146,
		Peers: []node.PeerProgress{
			{ID: 1, Match: 120, Next: 121, State: "StateProbe", RecentActive: true},
			{ID: 2, Match: 146, Next: 147, State: "StateReplicate", RecentActive: true},
			{ID: 3, Match: 140, Next: 147, State: "StateReplicate"},
		}}}
	refuser := follower("broker-1", 7, 2, 2, 150, 120)
	refuser.rejects, refuser.lastReject, refuser.rejectAtNs = 12, node.AppendAck{Group: 3, To: 2, Term: 7, Index: 121, Reject: true, HintIndex: 100, HintTerm: 5}, 35_200_000_000
	down := replicaStatus{broker: "broker-3", down: "its last failure, at 30.000 s: boot 4: store refused"}
	candidate := replicaStatus{broker: "broker-2", running: true, st: node.GroupStatus{Group: 3, Role: "StatePreCandidate", Term: 7, Vote: 0, LastIndex: 146, Commit: 140}}
	for _, c := range []struct {
		name  string
		views []replicaStatus
		want  []string
		not   []string
	}{
		{"no leader", []replicaStatus{follower("broker-1", 7, 2, 0, 150, 120), candidate, down}, []string{
			"group 3 has no leader",
			"broker-1 follower in term 7 (voted 2, believes leader 0, log through 150, commit 120)",
			"broker-2 precandidate in term 7",
			"broker-3 not running (its last failure, at 30.000 s: boot 4: store refused)",
		}, nil},
		{"a follower refuses appends, another is cut off", []replicaStatus{refuser, leader, follower("broker-3", 7, 2, 2, 140, 140)}, []string{
			"group 3 led by broker-2 in term 7, commit 140 of last index 146",
			"broker-1 lags at match 120, next 121: it refused 12 appends, the last at 35.200 s (the append after index 121; its log agrees at most through index 100, term 5), the leader is probing",
			"broker-3 lags at match 140, next 147: the leader has not heard from it within an election timeout",
		}, []string{"broker-2 lags"}},
		{"a follower down", []replicaStatus{follower("broker-1", 7, 2, 2, 146, 140), leader, down}, []string{
			"broker-3 lags at match 140, next 147: not running (its last failure",
		}, []string{"the leader has not heard from it"}},
		{"a follower in a later term", []replicaStatus{follower("broker-1", 9, 1, 0, 150, 120), leader, down}, []string{
			"broker-1 lags at match 120, next 121: it is in term 9, past the leader's",
		}, nil},
	} {
		got := whyStuck(3, c.views)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q\nlacks %q", c.name, got, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q\nshould not say %q", c.name, got, w)
			}
		}
	}
}
