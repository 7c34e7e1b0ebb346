package properties

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// storeFixture is a broker's durable store and memory that agree (sharing
// no map): one shard group with one scope whose retention dropped offset
// 0 (its outbox row is still held) and whose relay has confirmed nothing.
type storeFixture struct {
	sc     felix.Scope
	d, m   *fakeSide
	dg, mg StoreGroup
	// dFleet and mFleet are the metadata's text on each side.
	dFleet, mFleet string
	// noGroup and noScope leave the group, or its scope, out of the store.
	noGroup, noScope bool
	v                ScopeVerified
}

func newStoreFixture() *storeFixture {
	fx := &storeFixture{sc: felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "order-events", Shard: 1}, m: newFakeSide(),
		dFleet: "finalized [atomic_commit]", mFleet: "finalized [atomic_commit]"}
	rec := func(i byte) felix.Record {
		return felix.Record{Event: felix.EventEnqueue, Payload: []byte{'e', i}, Ops: []felix.StateOp{{Kind: felix.OpPut, Key: "k", Value: []byte{'v', i}}}}
	}
	m := fx.m
	m.first, m.next = 1, 3
	m.log[1], m.log[2] = rec(1), rec(2)
	m.state["k"] = StoreSlot{Key: "k", Value: []byte{'v', 2}, Version: 2}
	m.groups["workers"] = GroupView{Name: "workers", CommittedOffset: 1, DeliverNextOffset: 2, Leases: []GroupLease{{Offset: 1, ExpiryNs: 900}}}
	fx.d = m.clone()
	fx.d.outbox[0] = felix.Entry{Offset: 0, Record: felix.Record{Event: felix.EventEnqueue, Payload: []byte("e0")}}
	for o, r := range m.log {
		fx.d.outbox[o] = felix.Entry{Offset: o, Record: felix.Record{Event: r.Event, Payload: r.Payload}}
	}
	raft := func() fakeRaft { return fakeRaft{8: {Term: 3, Data: []byte("a")}, 9: {Term: 3, Data: []byte("b")}} }
	group := func() StoreGroup {
		return StoreGroup{ID: 2, HardState: RaftHardState{Term: 3, Vote: 1, Commit: 9}, Applied: 9, Features: "atomic_commit",
			Incarnation: "generation 1", Voters: []uint64{1, 2, 3}, FirstIndex: 8, LastIndex: 9, Raft: raft()}
	}
	fx.dg, fx.mg = group(), group()
	return fx
}

// check runs StoreMatchesMemory on the fixture, handing over each side's
// changes noted since the last check and keeping what it verified.
func (fx *storeFixture) check() error {
	d := &StoreImage{Broker: "broker-1", Fleet: fx.dFleet, Groups: []StoreGroup{fx.dg}}
	m := &StoreImage{Broker: "broker-1", Fleet: fx.mFleet, Groups: []StoreGroup{fx.mg}}
	d.Groups[0].Scopes = []StoreScope{fx.d.scope(fx.sc, true, nil)}
	m.Groups[0].Scopes = []StoreScope{fx.m.scope(fx.sc, false, &fx.v)}
	if fx.noScope {
		d.Groups[0].Scopes = nil
	}
	if fx.noGroup {
		d.Groups = nil
	}
	return StoreMatchesMemory(d, m)
}

// brokenStores are hand-made differences between a store and memory, in
// every table, each made as the follower or the shard would report it,
// and what the check must name.
var brokenStores = []struct {
	name    string
	breakIt func(fx *storeFixture)
	want    string
}{
	{"vote not persisted", func(fx *storeFixture) { fx.dg.HardState.Vote = 0 }, "stored hard state term 3 vote 0"},
	{"commit ahead of memory", func(fx *storeFixture) { fx.dg.HardState.Commit = 10 }, "commit 10"},
	{"applied index one short", func(fx *storeFixture) { fx.dg.Applied = 8 }, "stored applied index 8, memory's 9"},
	{"features lost", func(fx *storeFixture) { fx.dg.Features = "" }, "stored features"},
	{"incarnation", func(fx *storeFixture) { fx.dg.Incarnation = "generation 2" }, "stored incarnation generation 2"},
	{"membership", func(fx *storeFixture) { fx.dg.Voters = []uint64{1, 2} }, "stored membership voters [1 2]"},
	{"stale raft entry", func(fx *storeFixture) { fx.dg.Raft.(fakeRaft)[9] = RaftEntry{Term: 3, Data: []byte("x")} }, "stored raft entry 9 (term 3, 1 bytes) differs"},
	{"stale term", func(fx *storeFixture) { fx.dg.Raft.(fakeRaft)[8] = RaftEntry{Term: 2, Data: []byte("a")} }, "stored raft entry 8 (term 2, 1 bytes) differs"},
	{"raft log short (an append lost)", func(fx *storeFixture) { fx.dg.LastIndex = 8 }, "stored raft log holds [8, 8], memory's [8, 9]"},
	{"stale suffix kept", func(fx *storeFixture) { fx.dg.LastIndex = 12 }, "stored raft log holds [8, 12]"},
	{"group missing", func(fx *storeFixture) { fx.noGroup = true }, "group 2 is in memory but not in the store"},
	{"scope missing", func(fx *storeFixture) { fx.noScope = true }, "is in memory but not in the store"},
	{"window (a position row)", func(fx *storeFixture) { fx.d.first = 0 }, "stored window [0, 3)"},
	{"record differs", func(fx *storeFixture) {
		r := fx.d.log[1]
		r.Ops = nil
		fx.d.putLog(1, r)
	}, "the record at offset 1 differs"},
	{"log row missing", func(fx *storeFixture) { fx.d.delLog(1) }, "the store's log table holds offset 2 where memory's holds 1"},
	{"last log row missing", func(fx *storeFixture) { fx.d.delLog(2) }, "memory's log holds offset 2"},
	{"memory's record differs (a new shard)", func(fx *storeFixture) {
		r := fx.m.log[1]
		r.Payload = []byte("other")
		fx.m.log[1] = r
		fx.m.changes.All = true
	}, "the record at offset 1 differs"},
	{"state value", func(fx *storeFixture) { fx.d.putState(StoreSlot{Key: "k", Value: []byte("v2"), Version: 1}) }, `key "k": stored`},
	{"state row extra", func(fx *storeFixture) { fx.d.putState(StoreSlot{Key: "z", Version: 1}) }, `the store's state table holds "z"`},
	{"memory's state changed", func(fx *storeFixture) { fx.m.delState("k") }, `the store's state table holds "k"`},
	{"older group position (a snapshot install writing the groups it had)", func(fx *storeFixture) {
		fx.d.putGroup(GroupView{Name: "workers", CommittedOffset: 0, DeliverNextOffset: 1})
	}, `consumer group stored "workers" committed 0`},
	{"memory's group moved", func(fx *storeFixture) {
		fx.m.putGroup(GroupView{Name: "workers", CommittedOffset: 2, DeliverNextOffset: 2})
	}, `consumer group stored "workers" committed 1`},
	{"outbox start one short", func(fx *storeFixture) { fx.m.outboxStart = 1 }, "the store's outbox holds 3 rows at offsets 0..2, memory's outbox [1, 3)"},
	{"outbox row lost", func(fx *storeFixture) { fx.d.delOutbox(0) }, "memory's outbox [0, 3)"},
	{"outbox row in the window lost", func(fx *storeFixture) { fx.d.delOutbox(1) }, "the store's outbox holds 2 rows at offsets 0..2"},
	{"outbox row of another tenant", func(fx *storeFixture) {
		fx.d.putOutbox(felix.Entry{Offset: 2, Record: felix.Record{Event: felix.EventEnqueue, Payload: []byte("other")}})
	}, "the outbox row at offset 2"},
	{"fleet", func(fx *storeFixture) { fx.dFleet = "finalized []" }, "the store's metadata is finalized []"},
}

// TestStoreMatchesMemoryRefusesBrokenStores: agreeing sides pass; each
// hand-broken side (the shapes of real durability bugs, one in every
// table) fails naming the difference, both on a first comparison and
// after a comparison that verified everything, the difference planted
// under the verified rows and reported as its side would report it (so
// the check fails if its bookkeeping misses the change).
func TestStoreMatchesMemoryRefusesBrokenStores(t *testing.T) {
	fx := newStoreFixture()
	if err := fx.check(); err != nil {
		t.Fatalf("agreeing sides refused: %v", err)
	}
	fx.mg.HardState.Commit = 12
	if err := fx.check(); err != nil {
		t.Fatalf("a stored commit index behind memory's refused: %v", err)
	}
	for _, tc := range brokenStores {
		for _, verifiedFirst := range []bool{false, true} {
			fx := newStoreFixture()
			if verifiedFirst {
				if err := fx.check(); err != nil || !fx.v.Valid {
					t.Fatalf("%s: the first comparison: %v, verified %+v", tc.name, err, fx.v)
				}
			}
			tc.breakIt(fx)
			err := fx.check()
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), string(InvariantStoreMatchesMemory)) {
				t.Errorf("%s (verified first: %v): %v, want an error naming %q", tc.name, verifiedFirst, err, tc.want)
			}
			if fx.v.Valid && tc.name != "fleet" { // the fleet is compared after the scopes, which passed
				t.Errorf("%s (verified first: %v): a failed comparison left %+v verified", tc.name, verifiedFirst, fx.v)
			}
		}
	}
}

// TestStoreMatchesMemoryReadsOnlyWhatChanged: after a comparison, a
// difference planted under the verified rows without its side reporting
// it is not seen (the comparison reads only reported changes), and the
// same difference reported is; a retention step (rows deleted below the
// window) and appended rows keep what was verified.
func TestStoreMatchesMemoryReadsOnlyWhatChanged(t *testing.T) {
	fx := newStoreFixture()
	if err := fx.check(); err != nil {
		t.Fatal(err)
	}
	r := fx.d.log[1]
	r.Payload = []byte("unreported")
	fx.d.log[1] = r
	if err := fx.check(); err != nil {
		t.Fatalf("an unreported change under the verified rows was read: %v", err)
	}
	fx.d.putLog(1, r)
	if err := fx.check(); err == nil || !strings.Contains(err.Error(), "the record at offset 1 differs") {
		t.Fatalf("the same change reported: %v", err)
	}
	fx = newStoreFixture()
	if err := fx.check(); err != nil {
		t.Fatal(err)
	}
	fx.d.delLog(1) // lost, and a row past the window keeps the count
	fx.d.putLog(3, fx.m.log[1])
	if err := fx.check(); err == nil || !strings.Contains(err.Error(), "the store's log table holds offset 2 where memory's holds 1") {
		t.Fatalf("a verified row lost, one past the window written: %v", err)
	}
	for _, tc := range []struct {
		name    string
		breakIt func(fx *storeFixture)
		want    string
	}{
		{"an outbox row lost, one past the window written", func(fx *storeFixture) {
			fx.d.delOutbox(1)
			fx.d.putOutbox(felix.Entry{Offset: 3})
		}, "the store's outbox holds 2 rows at offsets 2..3, memory's outbox [1, 3)"},
		{"memory changed more keys than it listed", func(fx *storeFixture) {
			fx.m.state["k"] = StoreSlot{Key: "k", Value: []byte("unlisted"), Version: 2}
			fx.m.changes.KeysAll = true
		}, `key "k": stored "v\x02" at version 2, memory's "unlisted"`},
		{"memory's outbox start moved back, a row past the window written", func(fx *storeFixture) {
			fx.d.putOutbox(felix.Entry{Offset: 3})
			fx.m.outboxStart = 0
		}, "the store's outbox holds 3 rows at offsets 1..3, memory's outbox [0, 3)"},
	} {
		fx := newStoreFixture()
		fx.m.outboxStart = 1
		fx.d.delOutbox(0)
		if err := fx.check(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		tc.breakIt(fx)
		if err := fx.check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %q", tc.name, err, tc.want)
		}
	}
	fx = newStoreFixture()
	if err := fx.check(); err != nil {
		t.Fatal(err)
	}
	rec := felix.Record{Event: felix.EventPublish, Payload: []byte("e3")}
	for _, s := range []*fakeSide{fx.d, fx.m} {
		s.putLog(3, rec)
		s.next = 4
		s.delLog(1)
		s.first = 2
	}
	fx.d.putOutbox(felix.Entry{Offset: 3, Record: felix.Record{Event: rec.Event, Payload: rec.Payload}})
	if err := fx.check(); err != nil || fx.v != (ScopeVerified{Valid: true, First: 2, Next: 4}) {
		t.Fatalf("after a retention step and an append: %v, verified %+v", err, fx.v)
	}
}
