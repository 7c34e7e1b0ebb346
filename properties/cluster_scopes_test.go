package properties

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// clusterFixture is one scope on three brokers, all holding the same log:
// a commit_if at 0 (put order-1), a commit at 1 (put order-1, put cart-1),
// a publish at 2; and the history's acknowledgements of all three.
func clusterFixture() (ClusterScope, []AckedWrite, []ConditionalOutcome) {
	mk := func(name string) ReplicaView {
		return ReplicaView{Name: name,
			Log: []ViewEntry{
				{Offset: 0, HasEvent: true, Event: "e0", Conditional: true, ExpectedOffset: 0, Ops: []ViewOp{{Key: "order-1", Value: "placed"}}},
				{Offset: 1, HasEvent: true, Event: "e1", Ops: []ViewOp{{Key: "order-1", Value: "paid"}, {Key: "cart-1", Value: "items"}}},
				{Offset: 2, HasEvent: true, Event: "e2"},
			},
			State: []ViewSlot{{Key: "cart-1", Value: "items", Version: 1}, {Key: "order-1", Value: "paid", Version: 1}}}
	}
	cs := ClusterScope{Scope: testScope, FromStart: true, Replicas: []ReplicaView{mk("broker-1"), mk("broker-2"), mk("broker-3")}}
	acks := []AckedWrite{{Event: "e0", Offset: 0}, {Event: "e1", Offset: 1}, {Event: "e2", Offset: 2}}
	written := []ConditionalOutcome{{Event: "e0", ExpectedOffset: 0, Written: true, Offset: 0}}
	return cs, acks, written
}

func findings(fs []ClusterFinding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(string(f.Invariant) + ": " + f.Err.Error() + "\n")
	}
	return b.String()
}

func wantFinding(t *testing.T, name string, fs []ClusterFinding, invariant InvariantName) {
	t.Helper()
	for _, f := range fs {
		if f.Invariant == invariant && strings.Contains(f.Err.Error(), testScope.String()) {
			return
		}
	}
	t.Fatalf("%s: want a %s finding naming the scope, got:\n%s", name, invariant, findings(fs))
}

func TestCheckClusterScope(t *testing.T) {
	cs, acks, written := clusterFixture()
	if fs := CheckClusterScope(&cs, acks, written, nil); len(fs) != 0 {
		t.Fatalf("whole cluster: %s", findings(fs))
	}

	cs, acks, written = clusterFixture()
	cs.Replicas[1].Log[1].Ops = cs.Replicas[1].Log[1].Ops[:1] // one replica's record lost a put
	fs := CheckClusterScope(&cs, acks, written, nil)
	wantFinding(t, "missing put", fs, InvariantCommittedPrefixAgreement)
	wantFinding(t, "missing put", fs, InvariantStateMatchesLog)

	cs, acks, written = clusterFixture()
	cs.Replicas[2].State[1].Version = 2 // version off by one
	wantFinding(t, "version off by one", CheckClusterScope(&cs, acks, written, nil), InvariantVersionIsOffset)

	cs, acks, written = clusterFixture()
	cs.Replicas[0].Log[2].Event = "other" // the acknowledged publish is not there
	wantFinding(t, "acknowledged record replaced", CheckClusterScope(&cs, acks, written, nil), InvariantCommittedNeverLost)

	cs, acks, written = clusterFixture()
	written[0].Offset = 1 // answered written away from its expected offset
	wantFinding(t, "conditional written elsewhere", CheckClusterScope(&cs, acks, written, nil), InvariantConditionalWrites)

	cs, acks, written = clusterFixture()
	cs.FromStart = false
	cs.Replicas[0].State = cs.Replicas[0].State[1:] // unverifiable fold: not reported as StateMatchesLog
	for _, f := range CheckClusterScope(&cs, acks, written, nil) {
		if f.Invariant == InvariantStateMatchesLog {
			t.Fatalf("fold of a partial log reported: %v", f.Err)
		}
	}
}

func TestHistoryAcksAndConditionals(t *testing.T) {
	h := fixtureHistory()
	r := rec("cond")
	addOp(h, HistoryOp{Kind: HistoryPublishIf, Record: cond(r, 4), InvokeNs: 50, CompleteNs: 60, Offset: 4})
	addOp(h, HistoryOp{Kind: HistoryCommitIf, Record: cond(r, 2), InvokeNs: 50, CompleteNs: 60, Outcome: OutcomeRefused, Tail: 5})
	acks := HistoryAcks(h)[testScope]
	if len(acks) != 5 || acks[0] != (AckedWrite{Event: "e0", Offset: 0}) || acks[4] != (AckedWrite{Event: "cond", Offset: 4}) {
		t.Fatalf("acks %v", acks)
	}
	w := HistoryWrittenConditionals(h)[testScope]
	if len(w) != 1 || w[0] != (ConditionalOutcome{Event: "cond", ExpectedOffset: 4, Written: true, Offset: 4}) {
		t.Fatalf("written conditionals %v", w)
	}
}

// TestClusterNoPartialCommitAgainstIntent: a replica whose log and state
// both lost a put agrees with its own fold, but not with what the client
// sent; the intent check reports it.
func TestClusterNoPartialCommitAgainstIntent(t *testing.T) {
	h := &History{}
	for _, w := range []struct {
		payload string
		ops     []felix.StateOp
	}{
		{"e0", []felix.StateOp{put("order-1", "placed")}},
		{"e1", []felix.StateOp{put("order-1", "paid"), put("cart-1", "items")}},
		{"e2", nil},
	} {
		r := rec(w.payload, w.ops...)
		addOp(h, HistoryOp{Kind: HistoryCommit, Record: &r, InvokeNs: 1, CompleteNs: 2, Outcome: OutcomeUnknown})
	}
	intent := HistoryIntents(h)
	cs, acks, written := clusterFixture()
	if fs := CheckClusterScope(&cs, acks, written, intent); len(fs) != 0 {
		t.Fatalf("whole cluster against intent: %s", findings(fs))
	}
	for i := range cs.Replicas {
		cs.Replicas[i].Log[1].Ops = cs.Replicas[i].Log[1].Ops[:1]
		cs.Replicas[i].State = cs.Replicas[i].State[1:]
	}
	fs := CheckClusterScope(&cs, acks, written, intent)
	wantFinding(t, "put lost from log and state alike", fs, InvariantNoPartialCommit)
	for _, f := range fs {
		if f.Invariant == InvariantStateMatchesLog || f.Invariant == InvariantCommittedPrefixAgreement {
			t.Fatalf("self-consistent replicas reported by %s", f.Invariant)
		}
	}
	if _, ok := intent("never"); ok {
		t.Fatal("intent of an unknown payload found")
	}
}

// TestClusterScopesRegroupsByScope: the brokers' views come out grouped by
// scope, scopes ascending, replicas in broker order, and FromStart false
// as soon as one replica no longer retains offset 0.
func TestClusterScopesRegroupsByScope(t *testing.T) {
	other := testScope
	other.Shard = 0 // sorts before testScope
	view := func(name string, s felix.Scope, first uint64) ReplicaView {
		return ReplicaView{Name: name, Scope: s, FirstOffset: first, NextOffset: first}
	}
	rs := []ReplicaLog{
		{Node: 1, Scopes: []ReplicaView{view("broker-1", other, 0), view("broker-1", testScope, 0)}},
		{Node: 2, Scopes: []ReplicaView{view("broker-2", testScope, 3)}},
		{Node: 3, Scopes: []ReplicaView{view("broker-3", other, 0), view("broker-3", testScope, 0)}},
	}
	got := ClusterScopes(rs)
	var b strings.Builder
	for _, cs := range got {
		b.WriteString(cs.Scope.String())
		if cs.FromStart {
			b.WriteString(" from-start")
		}
		for _, r := range cs.Replicas {
			b.WriteString(" " + r.Name)
		}
		b.WriteString("; ")
	}
	want := "acme/orders/order-events/0 from-start broker-1 broker-3; acme/orders/order-events/1 broker-1 broker-2 broker-3; "
	if b.String() != want {
		t.Fatalf("ClusterScopes:\n got %s\nwant %s", b.String(), want)
	}
	if len(ClusterScopes(nil)) != 0 {
		t.Fatal("ClusterScopes of no brokers is not empty")
	}
}
