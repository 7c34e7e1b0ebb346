package properties

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// outboxRef is a committed log of two tenants that reuse offsets 0..2 of
// one stream shard, as the workload's tenants do on purpose.
func outboxRef() (*ReplicaLog, felix.Scope, felix.Scope) {
	a := felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "order-events"}
	b := felix.Scope{Tenant: "globex", Namespace: "orders", Stream: "order-events"}
	view := func(s felix.Scope, events ...string) ReplicaView {
		v := ReplicaView{Scope: s, NextOffset: uint64(len(events))}
		for i, e := range events {
			v.Log = append(v.Log, ViewEntry{Offset: uint64(i), HasEvent: true, Event: e, Enqueue: i == 1})
		}
		return v
	}
	return &ReplicaLog{Node: 1, Scopes: []ReplicaView{view(a, "a0", "a1", "a2"), view(b, "b0", "b1", "b2")}}, a, b
}

func sent(s felix.Scope, off uint64, event string, inc uint64) OutboxDelivery {
	return OutboxDelivery{Scope: s, Offset: off, Enqueue: off == 1, Event: event, Incarnation: inc}
}

// TestOutboxChecks: a correct delivery sequence (with a redelivery after
// a relay restart) passes every check; each hand-broken sequence fails
// exactly the check that states what it breaks.
func TestOutboxChecks(t *testing.T) {
	ref, a, b := outboxRef()
	good := []OutboxDelivery{
		sent(a, 0, "a0", 1), sent(b, 0, "b0", 1), sent(a, 1, "a1", 1),
		sent(a, 1, "a1", 2), sent(a, 2, "a2", 2), sent(b, 1, "b1", 2), sent(b, 2, "b2", 2),
	}
	checks := map[InvariantName]func(*ReplicaLog, []OutboxDelivery) error{
		InvariantOutboxDelivered:          OutboxDelivered,
		InvariantOutboxInOrder:            OutboxInOrder,
		InvariantOutboxNothingUncommitted: OutboxNothingUncommitted,
		InvariantOutboxOffsetMatchesState: OutboxOffsetMatchesState,
	}
	for name, check := range checks {
		if err := check(ref, good); err != nil {
			t.Errorf("%s on a correct sequence: %v", name, err)
		}
	}
	for _, tc := range []struct {
		name   string
		ds     []OutboxDelivery
		breaks InvariantName
		says   string
	}{
		{"b2 lost", good[:6], InvariantOutboxDelivered, "offset 2"},
		{"a2 before a1", []OutboxDelivery{sent(a, 0, "a0", 1), sent(a, 2, "a2", 1), sent(a, 1, "a1", 1),
			sent(b, 0, "b0", 1), sent(b, 1, "b1", 1), sent(b, 2, "b2", 1)}, InvariantOutboxInOrder, "offset 1 was ever delivered"},
		{"offset past the log", append(append([]OutboxDelivery(nil), good...), sent(a, 3, "a3", 2)), InvariantOutboxNothingUncommitted, "ends at offset 3"},
		{"globex's event as acme's (an unscoped outbox)", []OutboxDelivery{sent(a, 0, "a0", 1), sent(a, 1, "b1", 1), sent(a, 2, "a2", 1),
			sent(b, 0, "b0", 1), sent(b, 1, "b1", 1), sent(b, 2, "b2", 1)}, InvariantOutboxOffsetMatchesState, `"b1"`},
	} {
		for name, check := range checks {
			err := check(ref, tc.ds)
			if name != tc.breaks {
				if err != nil {
					t.Errorf("%s: %s fails too: %v", tc.name, name, err)
				}
				continue
			}
			if err == nil || !strings.Contains(err.Error(), tc.says) || !strings.HasPrefix(err.Error(), string(name)+": ") {
				t.Errorf("%s: %s = %v, want a violation naming it and saying %q", tc.name, name, err, tc.says)
			}
		}
	}
	if err := OutboxNothingUncommitted(ref, []OutboxDelivery{sent(felix.Scope{Tenant: "x", Namespace: "n", Stream: "s"}, 0, "x", 1)}); err == nil {
		t.Error("a delivery in a scope no replica holds passed OutboxNothingUncommitted")
	}
	if err := OutboxDelivered(ref, nil); err == nil || !strings.Contains(err.Error(), "and 5 more") {
		t.Errorf("nothing delivered: %v, want six missing records reported as one and 5 more", err)
	}
}

// TestOutboxKeptUntilRelayed: with retention having dropped a scope's
// offsets 0..1 from the log, a sink that received them passes; a sink
// missing one of them (its outbox row deleted before the relay read it)
// fails OutboxKeptUntilRelayed, which OutboxDelivered, judging the
// retained window only, does not see.
func TestOutboxKeptUntilRelayed(t *testing.T) {
	ref, a, b := outboxRef()
	ref.Scopes[0].FirstOffset, ref.Scopes[0].Log = 2, ref.Scopes[0].Log[2:]
	good := []OutboxDelivery{sent(a, 0, "a0", 1), sent(a, 1, "a1", 1), sent(a, 2, "a2", 1),
		sent(b, 0, "b0", 1), sent(b, 1, "b1", 1), sent(b, 2, "b2", 1)}
	for _, drained := range []bool{true, false} {
		if err := OutboxKeptUntilRelayed(ref, good, drained); err != nil {
			t.Fatalf("every dropped record delivered (drained %t): %v", drained, err)
		}
	}
	lost := append(append([]OutboxDelivery(nil), good[:1]...), good[2:]...) // a1 never delivered
	if err := OutboxDelivered(ref, lost); err != nil {
		t.Fatalf("OutboxDelivered judges the retained window only, which was delivered: %v", err)
	}
	for _, drained := range []bool{true, false} { // a2 delivered: the relay went past a1
		err := OutboxKeptUntilRelayed(ref, lost, drained)
		if err == nil || !strings.HasPrefix(err.Error(), string(InvariantOutboxKeptUntilRelayed)+":") || !strings.Contains(err.Error(), "offset 1") {
			t.Fatalf("a1 dropped before the relay delivered it (drained %t): got %v, want an OutboxKeptUntilRelayed violation at offset 1", drained, err)
		}
	}
	// A relay that has delivered nothing of acme yet has gone past nothing:
	// only a drained relay is held to the dropped records.
	behind := good[3:]
	if err := OutboxKeptUntilRelayed(ref, behind, false); err != nil {
		t.Fatalf("a relay not yet past the dropped records: %v", err)
	}
	if err := OutboxKeptUntilRelayed(ref, behind, true); err == nil || !strings.Contains(err.Error(), "offset 0") {
		t.Fatalf("a drained relay that never delivered a0 and a1: got %v, want an OutboxKeptUntilRelayed violation from offset 0", err)
	}
}
