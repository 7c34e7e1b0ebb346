package properties

import (
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// TestOutboxFromStart: a sink that got a scope's events from offset 0 in
// order (redeliveries between) passes, retention having dropped offsets
// 0-1 from the log; one whose first delivery is offset 2, or that got 2
// before 1, fails; gaps inside the retained window are OutboxInOrder's.
func TestOutboxFromStart(t *testing.T) {
	ref := ReplicaLog{Scopes: []ReplicaView{{Scope: testScope, FirstOffset: 2, NextOffset: 4}}}
	deliver := func(offsets ...uint64) []OutboxDelivery {
		var out []OutboxDelivery
		for _, o := range offsets {
			out = append(out, OutboxDeliveryOf(uint64(len(out)), testScope, &felix.Entry{Offset: o, Record: felix.Record{Event: felix.EventPublish}}, 1))
		}
		return out
	}
	if err := OutboxFromStart(&ref, deliver(0, 1, 0, 1, 2, 3)); err != nil {
		t.Fatalf("from the start, in order: %v", err)
	}
	wantInvariant(t, "began at the window", OutboxFromStart(&ref, deliver(2, 3, 0, 1)), InvariantOutboxFromStart)
	wantInvariant(t, "skipped a dropped offset", OutboxFromStart(&ref, deliver(0, 2, 1, 3)), InvariantOutboxFromStart)
	if err := OutboxFromStart(&ref, deliver(0, 1, 3, 2)); err != nil {
		t.Fatalf("a gap inside the window is OutboxInOrder's: %v", err)
	}
	other := felix.Scope{Tenant: "globex", Namespace: "orders", Stream: "order-events", Shard: 1}
	if err := OutboxFromStart(&ref, []OutboxDelivery{OutboxDeliveryOf(0, other, &felix.Entry{Offset: 7}, 1)}); err != nil {
		t.Fatalf("a scope the relay does not serve: %v", err)
	}
}
