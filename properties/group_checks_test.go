package properties

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// The consumer-group checks, each fed a correct fixture (it must pass) and
// hand-broken variants (each must fail, naming its invariant). The
// expected verdicts come from the statements in docs/atomic-commit.md
// (consumer groups), not from the broker.

const testGroup = "fulfilment"

// groupFetchOp is an ok fetch of testGroup in testScope, invoked and
// completed at the given times, handing out the fixture's entries at offsets.
func groupFetchOp(id uint64, invokeNs, completeNs int64, offsets ...uint64) HistoryOp {
	es := fixtureEntries()
	op := HistoryOp{ID: id, Kind: HistoryGroupFetch, Scope: testScope, Group: testGroup, InvokeNs: invokeNs, CompleteNs: completeNs, Outcome: OutcomeOK}
	for _, o := range offsets {
		op.Entries = append(op.Entries, es[o])
	}
	return op
}

func groupAckOp(id uint64, invokeNs, completeNs int64, offset uint64, out HistoryOutcome) HistoryOp {
	return HistoryOp{ID: id, Kind: HistoryGroupAck, Scope: testScope, Group: testGroup, AckOffset: offset,
		InvokeNs: invokeNs, CompleteNs: completeNs, Outcome: out}
}

func wantInvariant(t *testing.T, what string, err error, inv InvariantName) {
	t.Helper()
	if err == nil || !strings.HasPrefix(err.Error(), string(inv)+":") {
		t.Fatalf("%s: got %v, want a %s violation", what, err, inv)
	}
}

func TestHistoryGroupAckedNotRedelivered(t *testing.T) {
	ok := &History{Ops: []HistoryOp{
		groupFetchOp(1, 10, 20, 0, 1),
		groupAckOp(2, 21, 30, 0, OutcomeOK),
		// 1's ack is lost: its lease expires and it is handed out again.
		groupAckOp(3, 21, 40, 1, OutcomeUnknown),
		groupFetchOp(4, 50, 60, 1, 2),
		// A fetch concurrent with the ack may still see 0 leased and expired.
		groupFetchOp(5, 25, 35, 0),
	}}
	if err := HistoryGroupAckedNotRedelivered(ok); err != nil {
		t.Fatalf("correct history: %v", err)
	}
	broken := &History{Ops: append(append([]HistoryOp(nil), ok.Ops...), groupFetchOp(6, 30, 70, 0, 3))}
	wantInvariant(t, "acked offset 0 handed out by a fetch invoked when the ack completed", HistoryGroupAckedNotRedelivered(broken), InvariantGroupAckedNotRedelivered)
	other := &History{Ops: append(append([]HistoryOp(nil), ok.Ops...), groupFetchOp(6, 80, 90, 0))}
	other.Ops[5].Group = "billing" // another group may be handed offset 0
	if err := HistoryGroupAckedNotRedelivered(other); err != nil {
		t.Fatalf("another group's fetch: %v", err)
	}
}

func TestHistoryGroupDeliversEveryRecord(t *testing.T) {
	ref := ReplicaLog{Node: 1, Scopes: []ReplicaView{fixtureLog()}}
	ref.Scopes[0].Name = "broker-1"
	drained := []GroupKey{{Scope: testScope, Group: testGroup}}
	ok := &History{Ops: []HistoryOp{
		groupFetchOp(1, 10, 20, 0, 1),
		{ID: 2, Kind: HistoryGroupFetch, Scope: testScope, Group: testGroup, InvokeNs: 10, Outcome: OutcomeUnknown},
		groupFetchOp(3, 30, 40, 1, 2, 3),
	}}
	if err := HistoryGroupDeliversEveryRecord(ok, &ref, drained); err != nil {
		t.Fatalf("correct history: %v", err)
	}
	if err := HistoryGroupDeliversEveryRecord(ok, &ReplicaLog{}, drained); err != nil {
		t.Fatalf("a drained group of an empty scope: %v", err)
	}
	missing := &History{Ops: []HistoryOp{ok.Ops[0], groupFetchOp(3, 30, 40, 1, 3)}}
	wantInvariant(t, "offset 2 never handed out", HistoryGroupDeliversEveryRecord(missing, &ref, drained), InvariantGroupDeliversEveryRecord)
	if err := HistoryGroupDeliversEveryRecord(missing, &ref, nil); err != nil {
		t.Fatalf("an undrained group is not judged: %v", err)
	}
	failedOnly := &History{Ops: []HistoryOp{ok.Ops[0], groupFetchOp(3, 30, 40, 1, 2, 3)}}
	failedOnly.Ops[1].Outcome = OutcomeUnknown // what an unanswered fetch leased was delivered to nobody
	wantInvariant(t, "offsets 2, 3 only in an unknown fetch", HistoryGroupDeliversEveryRecord(failedOnly, &ref, drained), InvariantGroupDeliversEveryRecord)
	wrong := &History{Ops: []HistoryOp{ok.Ops[0], groupFetchOp(3, 30, 40, 1, 2, 3)}}
	wrong.Ops[1].Entries[1].Record.Payload = []byte("not-e2")
	wantInvariant(t, "offset 2 handed out with another event", HistoryGroupDeliversEveryRecord(wrong, &ref, drained), InvariantGroupDeliversEveryRecord)
}

func groupReplica(broker string, g GroupView) GroupReplica {
	return GroupReplica{Broker: broker, Scopes: []ScopeGroups{{Scope: testScope, Groups: []GroupView{g}}}}
}

func TestGroupStatesAgree(t *testing.T) {
	g := GroupView{Name: testGroup, CommittedOffset: 3, DeliverNextOffset: 6, Leases: []GroupLease{{3, 100}, {5, 120}}}
	same := []GroupReplica{groupReplica("broker-1", g), groupReplica("broker-2", g), groupReplica("broker-3", g)}
	if err := GroupStatesAgree(same); err != nil {
		t.Fatalf("equal replicas: %v", err)
	}
	for _, tc := range []struct {
		what string
		edit func(g *GroupView)
	}{
		{"committed position", func(g *GroupView) { g.CommittedOffset = 4; g.Leases = g.Leases[1:] }},
		{"next offset to hand out", func(g *GroupView) { g.DeliverNextOffset = 7 }},
		{"a lease's expiry", func(g *GroupView) { g.Leases = []GroupLease{{3, 100}, {5, 121}} }},
		{"a lease's offset", func(g *GroupView) { g.Leases = []GroupLease{{3, 100}, {4, 120}} }},
	} {
		h := g
		tc.edit(&h)
		bad := []GroupReplica{same[0], same[1], groupReplica("broker-3", h)}
		wantInvariant(t, tc.what, GroupStatesAgree(bad), InvariantGroupStateAgreement)
	}
	missing := []GroupReplica{same[0], {Broker: "broker-2"}}
	wantInvariant(t, "a broker without the group", GroupStatesAgree(missing), InvariantGroupStateAgreement)
	extra := []GroupReplica{{Broker: "broker-1"}, same[1]}
	wantInvariant(t, "a broker with an extra group", GroupStatesAgree(extra), InvariantGroupStateAgreement)
	unsorted := GroupReplica{Broker: "broker-1", Scopes: []ScopeGroups{{Scope: testScope, Groups: []GroupView{{Name: "b"}, {Name: "a"}}}}}
	if err := GroupStatesAgree([]GroupReplica{unsorted}); err == nil || strings.HasPrefix(err.Error(), string(InvariantGroupStateAgreement)) {
		t.Fatalf("unsorted input: got %v, want a refusal that is not a violation", err)
	}
}

func TestGroupPositionsNeverBackwards(t *testing.T) {
	other := testScope
	other.Tenant = "globex"
	durable := []GroupPositionView{{Scope: testScope, Group: testGroup, CommittedOffset: 7}, {Scope: other, Group: testGroup, CommittedOffset: 2}}
	later := []GroupPositionView{{Scope: testScope, Group: "billing", CommittedOffset: 0}, {Scope: testScope, Group: testGroup, CommittedOffset: 9}, {Scope: other, Group: testGroup, CommittedOffset: 2}}
	if err := GroupPositionsNeverBackwards("broker-1", durable, later); err != nil {
		t.Fatalf("positions forward or equal, a new group: %v", err)
	}
	if err := GroupPositionsNeverBackwards("broker-1", nil, later); err != nil {
		t.Fatalf("nothing durable before: %v", err)
	}
	back := []GroupPositionView{{Scope: testScope, Group: testGroup, CommittedOffset: 6}, {Scope: other, Group: testGroup, CommittedOffset: 2}}
	wantInvariant(t, "position 7 restored as 6", GroupPositionsNeverBackwards("broker-1", durable, back), InvariantGroupPositionMonotonic)
	gone := []GroupPositionView{{Scope: testScope, Group: testGroup, CommittedOffset: 7}}
	wantInvariant(t, "a durable group gone", GroupPositionsNeverBackwards("broker-1", durable, gone), InvariantGroupPositionMonotonic)
	if err := GroupPositionsNeverBackwards("broker-1", []GroupPositionView{durable[1], durable[0]}, later); err == nil || strings.HasPrefix(err.Error(), string(InvariantGroupPositionMonotonic)) {
		t.Fatalf("unsorted input: got %v, want a refusal that is not a violation", err)
	}
}

// TestGroupPositionsSurviveSnapshot: positions a replica made durable at
// or below a snapshot's index must all be on the installer, none lower;
// hand-broken lists (a group missing, a position lower) are refused with
// the invariant's name, and a reference later than the snapshot is bad
// input.
func TestGroupPositionsSurviveSnapshot(t *testing.T) {
	a := felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "order-events"}
	ref := []GroupPositionView{{Scope: a, Group: "billing", CommittedOffset: 7}, {Scope: a, Group: "shipping", CommittedOffset: 3}}
	same := []GroupPositionView{{Scope: a, Group: "billing", CommittedOffset: 7}, {Scope: a, Group: "shipping", CommittedOffset: 5}, {Scope: a, Group: "zeta", CommittedOffset: 1}}
	if err := GroupPositionsSurviveSnapshot("b1", 40, 30, ref, same); err != nil {
		t.Fatalf("every group kept, none lower: %v", err)
	}
	missing := []GroupPositionView{{Scope: a, Group: "billing", CommittedOffset: 9}}
	if err := GroupPositionsSurviveSnapshot("b1", 40, 30, ref, missing); err == nil || !strings.HasPrefix(err.Error(), string(InvariantGroupPositionInSnapshot)) || !strings.Contains(err.Error(), `"shipping"`) {
		t.Fatalf("shipping missing after the install: %v", err)
	}
	lower := []GroupPositionView{{Scope: a, Group: "billing", CommittedOffset: 6}, {Scope: a, Group: "shipping", CommittedOffset: 3}}
	if err := GroupPositionsSurviveSnapshot("b1", 40, 30, ref, lower); err == nil || !strings.Contains(err.Error(), "below 7") {
		t.Fatalf("billing lower after the install: %v", err)
	}
	if err := GroupPositionsSurviveSnapshot("b1", 40, 41, ref, same); err == nil || strings.HasPrefix(err.Error(), string(InvariantGroupPositionInSnapshot)) {
		t.Fatalf("a reference past the snapshot: %v, want bad input, not a violation", err)
	}
}
