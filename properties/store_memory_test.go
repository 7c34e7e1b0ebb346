package properties

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// storePair is a durable image and a memory image that agree (sharing no
// slice): one shard group with one scope whose retention dropped offset 0
// (its outbox row is still held) and whose relay has confirmed nothing.
func storePair() (durable, memory *StoreImage) { return storeImage(true), storeImage(false) }

// storeImage builds one side of storePair.
func storeImage(durable bool) *StoreImage {
	scope := felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "order-events", Shard: 1}
	rec := func(i byte) felix.Record {
		return felix.Record{Event: felix.EventEnqueue, Payload: []byte{'e', i}, Ops: []felix.StateOp{{Kind: felix.OpPut, Key: "k", Value: []byte{'v', i}}}}
	}
	sc := StoreScope{Scope: scope, FirstOffset: 1, NextOffset: 3,
		Log:    []felix.Entry{{Offset: 1, Record: rec(1)}, {Offset: 2, Record: rec(2)}},
		State:  []StoreSlot{{Key: "k", Value: []byte{'v', 2}, Version: 2}},
		Groups: []GroupView{{Name: "workers", CommittedOffset: 1, DeliverNextOffset: 2, Leases: []GroupLease{{Offset: 1, ExpiryNs: 900}}}}}
	if durable {
		sc.Outbox = []felix.Entry{{Offset: 0, Record: felix.Record{Event: felix.EventEnqueue, Payload: []byte("e0")}}}
		for _, e := range sc.Log {
			sc.Outbox = append(sc.Outbox, felix.Entry{Offset: e.Offset, Record: felix.Record{Event: e.Record.Event, Payload: e.Record.Payload}})
		}
	}
	g := StoreGroup{ID: 2, HardState: RaftHardState{Term: 3, Vote: 1, Commit: 9}, Applied: 9, Features: "atomic_commit",
		Incarnation: "generation 1", Voters: []uint64{1, 2, 3}, FirstIndex: 8, LastIndex: 9,
		Tail: []RaftEntry{{Term: 3, Data: []byte("b")}}, Scopes: []StoreScope{sc}}
	return &StoreImage{Broker: "broker-1", Fleet: "finalized [atomic_commit]", Groups: []StoreGroup{g}}
}

// TestStoreMatchesMemoryRefusesBrokenStores: agreeing images pass; each
// hand-broken durable side (the shapes of real durability bugs) fails,
// naming the difference.
func TestStoreMatchesMemoryRefusesBrokenStores(t *testing.T) {
	d, m := storePair()
	if err := StoreMatchesMemory(d, m); err != nil {
		t.Fatalf("agreeing images refused: %v", err)
	}
	m.Groups[0].HardState.Commit = 12
	if err := StoreMatchesMemory(d, m); err != nil {
		t.Fatalf("a stored commit index behind memory's refused: %v", err)
	}
	for _, tc := range []struct {
		name    string
		breakIt func(d, m *StoreImage)
		want    string
	}{
		{"vote not persisted", func(d, _ *StoreImage) { d.Groups[0].HardState.Vote = 0 }, "stored hard state term 3 vote 0"},
		{"commit ahead of memory", func(d, _ *StoreImage) { d.Groups[0].HardState.Commit = 10 }, "commit 10"},
		{"applied index one short", func(d, _ *StoreImage) { d.Groups[0].Applied = 8 }, "stored applied index 8, memory's 9"},
		{"features lost", func(d, _ *StoreImage) { d.Groups[0].Features = "" }, "stored features"},
		{"incarnation", func(d, _ *StoreImage) { d.Groups[0].Incarnation = "generation 2" }, "stored incarnation generation 2"},
		{"membership", func(d, _ *StoreImage) { d.Groups[0].Voters = []uint64{1, 2} }, "stored membership voters [1 2]"},
		{"stale raft entry", func(d, _ *StoreImage) { d.Groups[0].Tail[0] = RaftEntry{Term: 3, Data: []byte("x")} }, "stored raft entry 9 (term 3, 1 bytes) differs"},
		{"stale term", func(d, _ *StoreImage) { d.Groups[0].Tail[0].Term = 2 }, "stored raft entry 9 (term 2, 1 bytes) differs"},
		{"raft log short (an append lost)", func(d, _ *StoreImage) { d.Groups[0].LastIndex = 8 }, "stored raft log holds [8, 8], memory's [8, 9]"},
		{"stale suffix kept", func(d, _ *StoreImage) { d.Groups[0].LastIndex = 12 }, "stored raft log holds [8, 12]"},
		{"group missing", func(d, _ *StoreImage) { d.Groups = nil }, "group 2 is in memory but not in the store"},
		{"scope missing", func(d, _ *StoreImage) { d.Groups[0].Scopes = nil }, "is in memory but not in the store"},
		{"window", func(d, _ *StoreImage) { d.Groups[0].Scopes[0].FirstOffset = 0 }, "stored window [0, 3)"},
		{"record differs", func(d, _ *StoreImage) { d.Groups[0].Scopes[0].Log[1].Record.Ops = nil }, "the record at offset 2 differs"},
		{"log row missing", func(d, _ *StoreImage) { d.Groups[0].Scopes[0].Log = d.Groups[0].Scopes[0].Log[:1] }, "memory's log holds offset 2"},
		{"state value", func(d, _ *StoreImage) { d.Groups[0].Scopes[0].State[0].Version = 1 }, `key "k": stored`},
		{"state row extra", func(d, _ *StoreImage) {
			d.Groups[0].Scopes[0].State = append(d.Groups[0].Scopes[0].State, StoreSlot{Key: "z", Version: 1})
		}, `the store's state table holds "z"`},
		{"older group position (a snapshot install writing the groups it had)", func(d, _ *StoreImage) {
			d.Groups[0].Scopes[0].Groups = []GroupView{{Name: "workers", CommittedOffset: 0, DeliverNextOffset: 1}}
		}, `consumer group stored "workers" committed 0`},
		{"outbox start one short", func(d, m *StoreImage) { m.Groups[0].Scopes[0].OutboxStart = 1 }, "the store's outbox holds 3 rows at offsets 0..2, memory's outbox [1, 3)"},
		{"outbox row lost", func(d, _ *StoreImage) { d.Groups[0].Scopes[0].Outbox = d.Groups[0].Scopes[0].Outbox[1:] }, "memory's outbox [0, 3)"},
		{"outbox row of another tenant", func(d, _ *StoreImage) { d.Groups[0].Scopes[0].Outbox[2].Record.Payload = []byte("other") }, "the outbox row at offset 2"},
		{"fleet", func(d, _ *StoreImage) { d.Fleet = "finalized []" }, "the store's metadata is finalized []"},
	} {
		d, m := storePair()
		tc.breakIt(d, m)
		err := StoreMatchesMemory(d, m)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), string(InvariantStoreMatchesMemory)) {
			t.Errorf("%s: %v, want an error naming %q", tc.name, err, tc.want)
		}
	}
}

// TestStoreMatchesMemoryNeverPanics: an inconsistent memory image (its
// log shorter than its window) is an error, not a panic.
func TestStoreMatchesMemoryNeverPanics(t *testing.T) {
	d, m := storePair()
	m.Groups[0].Scopes[0].Log = nil
	d.Groups[0].Scopes[0].Log = nil
	if err := StoreMatchesMemory(d, m); err == nil || !strings.Contains(err.Error(), "memory's log lacks offset 1") {
		t.Fatalf("memory with a window but no log: %v", err)
	}
}
