package cluster

import (
	"reflect"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/wire"
)

// groupStates returns every running broker's consumer groups of tenant in
// group (fails if any broker lacks the scope).
func groupStates(t *testing.T, c *Cluster, group uint64, tenant string) [][]statemachine.GroupState {
	t.Helper()
	var out [][]statemachine.GroupState
	for _, r := range c.Snapshot().Replicas {
		sh := scopeOf(r.RaftGroups[group-1].Scopes, tenant)
		if sh == nil {
			t.Fatalf("broker %d lacks %s's scope", r.Node, tenant)
		}
		out = append(out, sh.Groups)
	}
	return out
}

// TestConsumerGroupSurvivesRestart: fetch and ack go through raft, and a
// whole-cluster kill and restart restores every broker's group position
// and leases from its store: nothing acked is handed out again, in-flight
// leases stay leased, and the next fetch continues where the group was.
func TestConsumerGroupSurvivesRestart(t *testing.T) {
	c, p := newTestCluster(t, 21)
	sc := acmeScope(0)
	group := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
	for i := 0; i < 10; i++ {
		if _, ok := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.Enqueue{Record: felix.Record{Event: felix.EventEnqueue, Payload: []byte{byte(i)}}}}).(*wire.Written); !ok {
			t.Fatal("enqueue not written")
		}
	}
	fetch := func() []felix.Entry {
		d, ok := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.GroupFetch{Group: "fulfilment", MaxEntries: 4, LeaseNs: 1000 * secondNs}}).(*wire.Deliveries)
		if !ok {
			t.Fatal("fetch refused")
		}
		return d.Entries
	}
	if got := fetch(); len(got) != 4 || got[0].Offset != 0 || got[3].Offset != 3 {
		t.Fatalf("first fetch handed out %d entries from %v", len(got), got)
	}
	for _, o := range []uint64{0, 1} {
		if _, ok := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.GroupAck{Group: "fulfilment", Offset: o}}).(*wire.Acked); !ok {
			t.Fatalf("ack %d refused", o)
		}
	}
	c.World.RunFor(secondNs)
	before := groupStates(t, c, group, "acme")
	want := []statemachine.GroupState{{Name: "fulfilment", CommittedOffset: 2, DeliverNextOffset: 4}}
	for _, gs := range before {
		if len(gs) != 1 || gs[0].CommittedOffset != 2 || gs[0].DeliverNextOffset != 4 || len(gs[0].Leases) != 2 {
			t.Fatalf("groups before restart %+v, want %+v with 2 leases", gs, want)
		}
	}
	for i := 0; i < c.Brokers(); i++ {
		c.World.Kill(i, true, secondNs/2)
	}
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	after := groupStates(t, c, group, "acme")
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("groups after restart %+v, before %+v", after, before)
	}
	if got := fetch(); len(got) != 4 || got[0].Offset != 4 {
		t.Fatalf("fetch after restart handed out %v, want offsets 4..7", got)
	}
}
