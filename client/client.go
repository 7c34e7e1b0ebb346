package client

import (
	"fmt"
	"slices"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/wire"
)

// NodeID names a broker; 0 means unknown.
type NodeID uint64

// Transport carries requests to brokers. Send must not block and must not
// call back into the Client; answers come back later through Deliver.
type Transport interface {
	// Send hands req to the network for delivery to broker to.
	Send(to NodeID, req *wire.Request)
}

// StreamShards gives the shard count of one stream in a namespace.
type StreamShards struct {
	Namespace string
	Stream    string
	Shards    uint32
}

// Config configures a Client; build it by field name.
type Config struct {
	// Brokers is every broker the client may send to; at least one, none 0.
	Brokers []NodeID
	// Streams is the topology: each stream's shard count, for routing.
	Streams []StreamShards
	// CallTimeoutNs is how long a call may wait for its answer before Tick
	// fails it; must be positive.
	CallTimeoutNs int64
	// PendingMax caps calls in flight; a call beyond it is refused with
	// ErrNotSent (overflow policy: refuse). 0 means DefaultPendingMax.
	PendingMax int
	// NotLeaderRedirectsMax is how often one call is re-sent after a NotLeader
	// answer (safe: NotLeader means nothing was written). 0 means never.
	NotLeaderRedirectsMax int
	// Defects are planted bugs; all off in a correct client.
	Defects Defects
	// KeepBrokerOnTimeout keeps a shard's broker after a call to it timed
	// out: the client moves only when a broker refuses (NotLeader,
	// Unavailable), as a client holding a connection that only a refusal
	// breaks. False tries another broker after every timeout.
	KeepBrokerOnTimeout bool
	// IdentityStride, when positive, names the brokers' later identities:
	// a leader hint naming id + k*IdentityStride (k >= 1, a replaced
	// broker's new raft identity in the slot of broker id) is read as
	// broker id. Zero reads hints as they are.
	IdentityStride uint64
}

// DefaultPendingMax is the cap on calls in flight when Config.PendingMax is 0.
const DefaultPendingMax = 1024

// Stats counts what the client saw, for tests and traces.
type Stats struct {
	Sent, Redirects, TimedOut uint64
	// StrayAnswers counts answers for no pending call (duplicates, answers
	// after a timeout) or from a broker the call was not sent to; ignored.
	StrayAnswers uint64
}

// call is one request in flight.
type call struct {
	req        wire.Request
	node       NodeID
	deadlineNs int64
	redirects  int
	// attempts are the requests the call sent: the first, then one per
	// NotLeader redirect, each with its broker and, once it came, the
	// answer the call took from that broker.
	// Invariant: len(attempts) == redirects+1 once sent, so it is bounded
	// by Config.NotLeaderRedirectsMax+1.
	attempts []Attempt
	// finish completes the typed Pending from an answer body or an error.
	finish func(cl *call, body wire.AnswerBody, err *CallError)
}

// Client is one Felix client endpoint. It is not safe for concurrent use;
// a simulator drives it from its single goroutine.
type Client struct {
	cfg    Config
	tr     Transport
	shards map[[2]string]uint32
	// leader and cursor hold one entry per scope the caller has used: they
	// grow with the caller's tenants, streams and shards, not with traffic.
	// They are only ever looked up, never iterated.
	leader map[felix.Scope]NodeID
	cursor map[felix.Scope]int
	// pending holds calls sent and not completed, keyed by request id.
	// Invariant: len(pending) <= cfg.PendingMax; a completed call is never in it.
	pending map[uint64]*call
	// nextID is the next request id; ids are never reused, so a late answer
	// can never complete the wrong call.
	nextID uint64
	stats  Stats
}

// New checks cfg and returns a client that sends through tr.
func New(cfg Config, tr Transport) (*Client, error) {
	if tr == nil {
		return nil, fmt.Errorf("client config refused: nil Transport")
	}
	if len(cfg.Brokers) == 0 {
		return nil, fmt.Errorf("client config refused: no brokers")
	}
	if slices.Contains(cfg.Brokers, 0) {
		return nil, fmt.Errorf("client config refused: broker id 0 is reserved for unknown")
	}
	if cfg.CallTimeoutNs <= 0 {
		return nil, fmt.Errorf("client config refused: CallTimeoutNs %d is not positive", cfg.CallTimeoutNs)
	}
	if cfg.PendingMax < 0 || cfg.NotLeaderRedirectsMax < 0 {
		return nil, fmt.Errorf("client config refused: PendingMax %d and NotLeaderRedirectsMax %d must not be negative", cfg.PendingMax, cfg.NotLeaderRedirectsMax)
	}
	if cfg.PendingMax == 0 {
		cfg.PendingMax = DefaultPendingMax
	}
	c := &Client{cfg: cfg, tr: tr, shards: map[[2]string]uint32{}, leader: map[felix.Scope]NodeID{},
		cursor: map[felix.Scope]int{}, pending: map[uint64]*call{}, nextID: 1}
	c.cfg.Brokers = slices.Clone(cfg.Brokers)
	for _, s := range cfg.Streams {
		if s.Shards == 0 {
			return nil, fmt.Errorf("client config refused: stream %s/%s has 0 shards", s.Namespace, s.Stream)
		}
		k := [2]string{s.Namespace, s.Stream}
		if _, dup := c.shards[k]; dup {
			return nil, fmt.Errorf("client config refused: stream %s/%s listed twice", s.Namespace, s.Stream)
		}
		c.shards[k] = s.Shards
	}
	return c, nil
}

// Stats returns the counters so far.
func (c *Client) Stats() Stats { return c.stats }

// InFlight is the number of calls sent and not yet completed.
func (c *Client) InFlight() int { return len(c.pending) }

// ShardCount is the stream's shard count from the topology, or false.
func (c *Client) ShardCount(namespace, stream string) (uint32, bool) {
	n, ok := c.shards[[2]string{namespace, stream}]
	return n, ok
}

// LeaderHint is the broker the client will send the shard's next call to.
func (c *Client) LeaderHint(s felix.Scope) NodeID { return c.target(s) }

// target picks the broker for a scope: the learned leader, else the
// broker at the scope's cursor in the configured list.
func (c *Client) target(s felix.Scope) NodeID {
	if id, ok := c.leader[s]; ok {
		return id
	}
	return c.cfg.Brokers[c.cursor[s]%len(c.cfg.Brokers)]
}

// forget drops a scope's leader hint and moves its cursor past the broker
// that failed, so the next call tries another.
func (c *Client) forget(s felix.Scope, failed NodeID) {
	delete(c.leader, s)
	if i := slices.Index(c.cfg.Brokers, failed); i >= 0 {
		c.cursor[s] = i + 1
	} else {
		c.cursor[s]++
	}
}

// learn records a leader hint from a NotLeader answer (a later identity
// read as its broker, see Config.IdentityStride); hints naming no
// configured broker are treated as unknown.
func (c *Client) learn(s felix.Scope, from, hint NodeID) {
	if st := NodeID(c.cfg.IdentityStride); st > 0 && hint > st {
		hint = (hint-1)%st + 1
	}
	if hint != 0 && hint != from && slices.Contains(c.cfg.Brokers, hint) {
		c.leader[s] = hint
		return
	}
	c.forget(s, from)
}

// send registers a call and hands its request to the transport.
func (c *Client) send(nowNs int64, q wire.Request, finish func(*call, wire.AnswerBody, *CallError)) (*call, error) {
	if len(c.pending) >= c.cfg.PendingMax {
		return nil, fmt.Errorf("%w: %s on %s: %d calls in flight, the cap", ErrNotSent, q.Body.Kind(), q.Scope, len(c.pending))
	}
	q.ID = c.nextID
	c.nextID++
	cl := &call{req: q, node: c.target(q.Scope), deadlineNs: nowNs + c.cfg.CallTimeoutNs, finish: finish}
	c.pending[q.ID] = cl
	c.transmit(cl)
	return cl, nil
}

// transmit sends a copy of the call's request, so that nothing the
// transport holds changes when the call is later redirected.
func (c *Client) transmit(cl *call) {
	req := cl.req
	cl.attempts = append(cl.attempts, Attempt{RequestID: req.ID, Broker: cl.node})
	if len(cl.attempts) != cl.redirects+1 {
		panic(fmt.Sprintf("client: request %d is send %d of a call redirected %d times", req.ID, len(cl.attempts), cl.redirects))
	}
	c.stats.Sent++
	c.tr.Send(cl.node, &req)
}
