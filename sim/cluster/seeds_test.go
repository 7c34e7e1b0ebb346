package cluster

import (
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/wire"
)

const secondNs = 1_000_000_000

// newTestCluster builds a 3-broker cluster with one probe and waits for
// every group to elect a leader.
func newTestCluster(t *testing.T, seed uint64) (*Cluster, *Probe) {
	t.Helper()
	p, spec := NewProbe("probe")
	c, err := New(Config{Seed: seed, Extra: []world.NodeSpec{spec}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	return c, p
}

func acmeScope(shard uint32) felix.Scope {
	return felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "order-events", Shard: shard}
}

func call(t *testing.T, c *Cluster, p *Probe, req *wire.Request) wire.AnswerBody {
	t.Helper()
	g := c.RaftGroupOf(req.Scope.Namespace, req.Scope.Stream, req.Scope.Shard)
	if g == 0 {
		t.Fatalf("no group for %s", req.Scope)
	}
	a, err := p.Call(c, g, req, 10*secondNs)
	if err != nil {
		t.Fatal(err)
	}
	return a.Body
}

// TestSeedOrder42 is the seeds' example: the order-42 commit (enqueue +
// put + delete of cart-42), then state_get returns version == the receipt's
// offset, and a subscriber sees the event at that offset.
func TestSeedOrder42(t *testing.T) {
	c, p := newTestCluster(t, 42)
	sc := acmeScope(1)
	put := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.Commit{Record: felix.Record{
		Event: felix.EventPublish, Payload: []byte("cart"),
		Ops: []felix.StateOp{{Kind: felix.OpPut, Key: "cart-42", Value: []byte(`{"items":1}`)}}}}})
	if _, ok := put.(*wire.Written); !ok {
		t.Fatalf("cart commit: %v", put)
	}
	ans := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.Commit{Record: felix.Record{
		Event: felix.EventEnqueue, Payload: []byte(`{"type":"placed","id":42}`),
		Ops: []felix.StateOp{
			{Kind: felix.OpPut, Key: "order-42", Value: []byte(`{"status":"placed"}`)},
			{Kind: felix.OpDelete, Key: "cart-42"},
		}}}})
	w, ok := ans.(*wire.Written)
	if !ok {
		t.Fatalf("order-42 commit: %v", ans)
	}
	if w.Offset != 1 {
		t.Fatalf("order-42 commit at offset %d, want 1", w.Offset)
	}
	sv, ok := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.StateGet{Key: "order-42"}}).(*wire.StateValue)
	if !ok || !sv.Found || sv.Version != w.Offset || string(sv.Value) != `{"status":"placed"}` {
		t.Fatalf("state_get order-42 = %+v, want found at version %d", sv, w.Offset)
	}
	cart, ok := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.StateGet{Key: "cart-42"}}).(*wire.StateValue)
	if !ok || cart.Found {
		t.Fatalf("state_get cart-42 = %+v, want absent after the delete", cart)
	}
	es, ok := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.SubscribeRead{FromOffset: w.Offset, MaxEntries: 10}}).(*wire.Entries)
	if !ok || len(es.Entries) != 1 || es.Entries[0].Offset != w.Offset || es.Entries[0].Record.Event != felix.EventEnqueue {
		t.Fatalf("subscribe from %d = %+v", w.Offset, es)
	}
	// Every broker holds the commit whole: event and state at one offset.
	c.World.RunFor(secondNs)
	for _, r := range c.Snapshot().Replicas {
		sv := r.RaftGroups[2].Scopes[0].Shard
		if sv.NextOffset != 2 || len(sv.State) != 1 || sv.State[0].Key != "order-42" || sv.State[0].Version != 1 {
			t.Fatalf("broker %d shard = next %d state %+v", r.Node, sv.NextOffset, sv.State)
		}
	}
}

// TestSeedCommitIfRefused: commit_if at the tail it saw is refused after a
// concurrent publish, with the true tail, and writes nothing.
func TestSeedCommitIfRefused(t *testing.T) {
	c, p := newTestCluster(t, 7)
	sc := acmeScope(2)
	pub := func() *wire.Written {
		w, ok := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.Publish{Record: felix.Record{Event: felix.EventPublish, Payload: []byte("tick")}}}).(*wire.Written)
		if !ok {
			t.Fatal("publish not written")
		}
		return w
	}
	first := pub()
	next := first.Offset + 1
	pub() // the concurrent publish moves the tail
	ans := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.CommitIf{Record: felix.Record{
		Event: felix.EventPublish, Payload: []byte(`{"tick":120}`), Conditional: true, ExpectedOffset: next,
		Ops: []felix.StateOp{{Kind: felix.OpPut, Key: "score", Value: []byte(`{"red":3}`)}}}}})
	r, ok := ans.(*wire.Refused)
	if !ok || r.Tail != next+1 {
		t.Fatalf("commit_if at %d = %v, want Refused{%d}", next, ans, next+1)
	}
	sv := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.StateGet{Key: "score"}}).(*wire.StateValue)
	if sv.Found {
		t.Fatalf("refused commit_if wrote state: %+v", sv)
	}
	ok2 := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.CommitIf{Record: felix.Record{
		Event: felix.EventPublish, Payload: []byte(`{"tick":121}`), Conditional: true, ExpectedOffset: r.Tail,
		Ops: []felix.StateOp{{Kind: felix.OpPut, Key: "score", Value: []byte(`{"red":4}`)}}}}})
	if w, ok := ok2.(*wire.Written); !ok || w.Offset != r.Tail {
		t.Fatalf("commit_if at the true tail %d = %v", r.Tail, ok2)
	}
}
