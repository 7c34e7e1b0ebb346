package client

import (
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/wire"
	"github.com/stretchr/testify/require"
)

// sent is one request the recording transport was handed.
type sent struct {
	to  NodeID
	req wire.Request
}

// recorder is a Transport that keeps every request, so tests can assert
// what was sent (or that nothing was) and answer by hand.
type recorder struct{ sends []sent }

func (r *recorder) Send(to NodeID, req *wire.Request) { r.sends = append(r.sends, sent{to, *req}) }

func (r *recorder) last(t require.TestingT) sent {
	require.NotEmpty(t, r.sends, "nothing was sent")
	return r.sends[len(r.sends)-1]
}

const timeoutNs = 1_000_000_000

func newTestClient(t *testing.T, redirects int) (*Client, *recorder) {
	t.Helper()
	tr := &recorder{}
	c, err := New(Config{
		Brokers:               []NodeID{1, 2, 3},
		Streams:               []StreamShards{{Namespace: "orders", Stream: "order-events", Shards: 4}, {Namespace: "orders", Stream: "audit", Shards: 1}},
		CallTimeoutNs:         timeoutNs,
		NotLeaderRedirectsMax: redirects,
	}, tr)
	require.NoError(t, err)
	return c, tr
}

// answer delivers body as the answer to the last request sent.
func answer(t *testing.T, c *Client, tr *recorder, nowNs int64, body wire.AnswerBody) {
	t.Helper()
	s := tr.last(t)
	c.Deliver(nowNs, s.to, &wire.Answer{ID: s.req.ID, Body: body})
}

func scopeOf(shard uint32) felix.Scope {
	return felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "order-events", Shard: shard}
}
