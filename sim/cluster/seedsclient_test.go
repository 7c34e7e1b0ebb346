package cluster

import (
	"errors"
	"testing"

	"github.com/felixsim/felixsim/client"
	"github.com/felixsim/felixsim/sim/world"
)

// newClientCluster builds a 3-broker cluster with n client processes and
// waits for every group's leader.
func newClientCluster(t *testing.T, seed uint64, n int) (*Cluster, []*ClientProc) {
	t.Helper()
	var procs []*ClientProc
	var specs []world.NodeSpec
	for i := 0; i < n; i++ {
		p, spec := NewClientProc("client", client.Config{}, 10_000_000)
		procs = append(procs, p)
		specs = append(specs, spec)
	}
	c, err := New(Config{Seed: seed, Extra: specs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	for _, p := range procs {
		p.cfg = c.ClientConfig(2 * secondNs)
	}
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	return c, procs
}

// wait returns a function that runs the world until a call completes and
// returns its result (or the call's refusal before sending).
func wait[T any](t *testing.T, c *Cluster) func(*client.Pending[T], error) (T, error) {
	return func(p *client.Pending[T], err error) (T, error) {
		t.Helper()
		if err != nil {
			var zero T
			return zero, err
		}
		if werr := c.World.RunUntil(func() (bool, string) { return p.Done(), "call" }, 10*secondNs); werr != nil {
			t.Fatal(werr)
		}
		return p.Result()
	}
}

// TestSeedExamplesThroughClient runs the seeds' examples through the real
// client API on a simulated 3-broker cluster: the order-42 commit (enqueue
// + put + delete of cart-42) and state_get's version == receipt.offset;
// commit_if refused after a concurrent publish, with the true tail and
// nothing written; NotOnOwningShard before anything is sent.
func TestSeedExamplesThroughClient(t *testing.T) {
	c, ps := newClientCluster(t, 5, 2)
	a, b := ps[0], ps[1]
	cl := a.Client
	const stream = "order-events"
	_, err := wait[client.Receipt](t, c)(cl.Commit(a.NowNs(), "acme", "orders", []byte("order-42"), []client.CommitOp{
		client.Publish(stream, []byte("cart created")), client.Put(stream, "cart-42", []byte(`{"items":1}`))}))
	if err != nil {
		t.Fatal(err)
	}
	receipt, err := wait[client.Receipt](t, c)(cl.Commit(a.NowNs(), "acme", "orders", []byte("order-42"), []client.CommitOp{
		client.Enqueue(stream, []byte(`{"type":"placed","id":42}`)),
		client.Put(stream, "order-42", []byte(`{"status":"placed"}`)),
		client.Delete(stream, "cart-42"),
	}))
	if err != nil {
		t.Fatal(err)
	}
	st, err := wait[client.State](t, c)(cl.StateGet(a.NowNs(), "acme", "orders", stream, []byte("order-42"), "order-42"))
	if err != nil || !st.Found || st.Version != receipt.Offset {
		t.Fatalf("state_get order-42 = %+v (err %v), want version %d", st, err, receipt.Offset)
	}
	cart, err := wait[client.State](t, c)(cl.StateGet(a.NowNs(), "acme", "orders", stream, []byte("order-42"), "cart-42"))
	if err != nil || cart.Found {
		t.Fatalf("state_get cart-42 = %+v (err %v), want absent", cart, err)
	}

	// commit_if: A learns the tail from its own commit, B publishes on the
	// same shard, A's commit_if at the old tail is refused with the truth.
	w, err := wait[client.Receipt](t, c)(cl.Commit(a.NowNs(), "acme", "orders", []byte("match-7"), []client.CommitOp{
		client.Publish(stream, []byte(`{"tick":119}`)), client.Put(stream, "score", []byte(`{"red":2,"blue":1}`))}))
	if err != nil {
		t.Fatal(err)
	}
	next := w.Offset + 1
	if _, err := wait[client.Receipt](t, c)(b.Client.Publish(b.NowNs(), "acme", "orders", stream, []byte("match-7"), []byte("goal"))); err != nil {
		t.Fatal(err)
	}
	cw, err := wait[client.ConditionalWrite](t, c)(cl.CommitIf(a.NowNs(), "acme", "orders", []byte("match-7"), []client.CommitOp{
		client.Publish(stream, []byte(`{"tick":120}`)), client.Put(stream, "score", []byte(`{"red":3,"blue":1}`))}, next))
	if ref, ok := cw.(client.Refused); err != nil || !ok || ref.Tail != next+1 {
		t.Fatalf("commit_if at %d = %#v (err %v), want Refused{%d}", next, cw, err, next+1)
	}
	score, err := wait[client.State](t, c)(cl.StateGet(a.NowNs(), "acme", "orders", stream, []byte("match-7"), "score"))
	if err != nil || string(score.Value) != `{"red":2,"blue":1}` || score.Version != w.Offset {
		t.Fatalf("after the refused commit_if, score = %q at %d (err %v), want the old value at %d", score.Value, score.Version, err, w.Offset)
	}

	// NotOnOwningShard: refused by the client, nothing sent.
	sent := cl.Stats().Sent
	_, err = cl.Commit(a.NowNs(), "acme", "orders", []byte("order-42"), []client.CommitOp{
		client.Enqueue(stream, []byte("x")), client.Put("inventory", "sku-1", []byte("0"))})
	var ce *client.CommitError
	if !errors.As(err, &ce) || ce.Code != client.NotOnOwningShard || !errors.Is(err, client.ErrNotSent) {
		t.Fatalf("commit across two streams: err %v, want NotOnOwningShard", err)
	}
	if cl.Stats().Sent != sent {
		t.Fatalf("a refused commit sent %d requests", cl.Stats().Sent-sent)
	}
}
