package cluster

import (
	"fmt"

	"github.com/felixsim/felixsim/client"
	"github.com/felixsim/felixsim/sim/simapi"
	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/wire"
)

// ClientProc hosts one client.Client as a fault-exempt process: requests
// travel as *RequestMsg to brokers' sim ids, answers come back as
// *AnswerMsg and are delivered with the sender's raft id, and the client's
// Tick runs every tickNs on the process's clock so overdue calls fail.
// Callers issue calls from outside the world (or from OnDone callbacks)
// with NowNs as the time.
type ClientProc struct {
	// Client is the hosted client; nil until the process boots at time 0.
	Client *client.Client
	cfg    client.Config
	tickNs int64
	env    simapi.Env
}

// NewClientProc returns a client process and the world slot hosting it
// (put it in Config.Extra). Its client is built at boot from cfg.
func NewClientProc(name string, cfg client.Config, tickNs int64) (*ClientProc, world.NodeSpec) {
	p := &ClientProc{cfg: cfg, tickNs: tickNs}
	return p, world.NodeSpec{Name: name, New: func() simapi.Process { return p }, FaultExempt: true}
}

// ClientConfig is a client config that knows this cluster's brokers and
// topology, with the given call timeout; other fields are zero.
func (c *Cluster) ClientConfig(callTimeoutNs int64) client.Config {
	cfg := client.Config{CallTimeoutNs: callTimeoutNs, NotLeaderRedirectsMax: 3}
	for _, p := range c.peers {
		cfg.Brokers = append(cfg.Brokers, client.NodeID(p))
	}
	for _, s := range c.cfg.Streams {
		cfg.Streams = append(cfg.Streams, client.StreamShards{Namespace: s.Namespace, Stream: s.Stream, Shards: s.Shards})
	}
	return cfg
}

// Boot builds the client; a config the client refuses is a test bug.
func (p *ClientProc) Boot(env simapi.Env) {
	if p.Client != nil {
		panic("cluster: a ClientProc booted twice; client processes must be fault exempt")
	}
	p.env = env
	cl, err := client.New(p.cfg, clientTransport{env: env})
	if err != nil {
		panic(fmt.Sprintf("cluster: client process config: %v", err))
	}
	p.Client = cl
	if p.tickNs > 0 {
		env.AfterNs(p.tickNs, p.tick)
	}
}

func (p *ClientProc) tick() {
	p.Client.Tick(p.env.NowNs())
	p.env.AfterNs(p.tickNs, p.tick)
}

// SimID is the client process's sim id, the sender brokers see.
func (p *ClientProc) SimID() int { return p.env.ID() }

// NowNs is the client process's clock, the time to pass to client calls.
func (p *ClientProc) NowNs() int64 { return p.env.NowNs() }

// Receive delivers a broker's answer to the client.
func (p *ClientProc) Receive(from int, msg simapi.Message) {
	a, ok := msg.(*AnswerMsg)
	if !ok {
		panic(fmt.Sprintf("cluster: client process received a %T from %d", msg, from))
	}
	p.Client.Deliver(p.env.NowNs(), client.NodeID(RaftID(from)), a.Ans)
}

// clientTransport sends a copy of each request, so that a client reusing
// its request struct (redirects renumber it) cannot change one in flight.
type clientTransport struct{ env simapi.Env }

func (t clientTransport) Send(to client.NodeID, req *wire.Request) {
	r := *req
	t.env.Send(SimID(uint64(to)), &RequestMsg{Req: &r})
}
