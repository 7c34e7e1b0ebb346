package client

import (
	"testing"

	"github.com/felixsim/felixsim/wire"
)

// nullTransport drops every request but remembers the last, so a benchmark
// can answer it without growing a slice.
type nullTransport struct {
	to  NodeID
	req wire.Request
}

func (n *nullTransport) Send(to NodeID, req *wire.Request) { n.to, n.req = to, *req }

// BenchmarkCommitRoundTrip is one commit (one event + four puts) validated,
// routed, sent and completed by its answer.
func BenchmarkCommitRoundTrip(b *testing.B) {
	tr := &nullTransport{}
	c, err := New(Config{Brokers: []NodeID{1, 2, 3}, Streams: []StreamShards{{Namespace: "orders", Stream: "order-events", Shards: 4}}, CallTimeoutNs: 1e9}, tr)
	if err != nil {
		b.Fatal(err)
	}
	v := []byte(`{"status":"placed","total":1299}`)
	ops := []CommitOp{Enqueue("order-events", []byte(`{"type":"placed","id":42}`)),
		Put("order-events", "order-42", v), Put("order-events", "order-42/lines", v),
		Put("order-events", "customer-7/last-order", v), Put("order-events", "cart-42", v)}
	ans := &wire.Answer{Body: &wire.Written{Offset: 1}}
	b.ReportAllocs()
	for b.Loop() {
		p, err := c.Commit(0, "acme", "orders", []byte("order-42"), ops)
		if err != nil {
			b.Fatal(err)
		}
		ans.ID = tr.req.ID
		c.Deliver(0, tr.to, ans)
		if !p.Done() {
			b.Fatal("not completed")
		}
	}
}
