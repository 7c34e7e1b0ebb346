package worldtest

// This file holds the probe: a passive test process that records what it
// receives and lets a test send and arm timers through its Env.

import (
	"fmt"
	"testing"

	"github.com/felixsim/felixsim/sim/simapi"
	"github.com/felixsim/felixsim/sim/world"
)

// ProbeMsg is an immutable message (a value type, so duplicates share it).
type ProbeMsg uint64

// Digest implements simapi.Message.
func (m ProbeMsg) Digest() uint64 { return uint64(m)*0x9e3779b97f4a7c15 + 7 }

// BoxMsg is a mutable message: duplicates must be clones.
type BoxMsg struct{ N uint64 }

// Digest implements simapi.Message.
func (m *BoxMsg) Digest() uint64 { return m.N + 11 }

// Clone implements simapi.Cloner.
func (m *BoxMsg) Clone() simapi.Message { c := *m; return &c }

// Received is one message a probe received.
type Received struct {
	From int
	AtNs int64
	Msg  simapi.Message
}

// Probes is the shared record of every probe in one world.
type Probes struct {
	W     *world.World
	Envs  []simapi.Env
	Recv  [][]Received
	Boots []int
}

// NewProbes returns the record of n probes, none booted yet.
func NewProbes(n int) *Probes {
	return &Probes{Envs: make([]simapi.Env, n), Recv: make([][]Received, n), Boots: make([]int, n)}
}

// Probe is one probe process: node ID of the probes P records.
type Probe struct {
	ID int
	P  *Probes
}

// Boot implements simapi.Process: it keeps the Env for the test.
func (pr *Probe) Boot(env simapi.Env) { pr.P.Envs[pr.ID] = env; pr.P.Boots[pr.ID]++ }

// Receive implements simapi.Process: it records the message.
func (pr *Probe) Receive(from int, msg simapi.Message) {
	pr.P.Recv[pr.ID] = append(pr.P.Recv[pr.ID], Received{From: from, AtNs: pr.P.W.NowNs(), Msg: msg})
}

// ProbeWorld builds n probes with the given link; it boots them (runs time
// 0) and registers Close with t.
func ProbeWorld(t *testing.T, seed uint64, n int, link world.LinkConfig, edit func(*world.Config)) (*world.World, *Probes) {
	t.Helper()
	p := NewProbes(n)
	specs := make([]world.NodeSpec, n)
	for i := range specs {
		id := i
		specs[i] = world.NodeSpec{Name: "probe", New: func() simapi.Process { return &Probe{ID: id, P: p} }}
	}
	cfg := world.Config{Seed: seed, Nodes: specs, Link: link, RecordTrace: true}
	if edit != nil {
		edit(&cfg)
	}
	w, err := world.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	p.W = w
	w.RunFor(0)
	return w, p
}

// FixedLink is a lossless link with a constant 1 ms latency.
var FixedLink = world.LinkConfig{LatencyMinNs: 1_000_000, LatencyMaxNs: 1_000_000}

// CountFrom counts messages node to received from node from.
func (p *Probes) CountFrom(to, from int) int {
	c := 0
	for _, r := range p.Recv[to] {
		if r.From == from {
			c++
		}
	}
	return c
}

// Reach sends from every probe to every other, runs the world 5 ms, and
// returns "a>b " for each pair that got through (receivers ascending,
// then senders), forgetting what the probes received before.
func (p *Probes) Reach() string {
	n := p.W.Nodes()
	for i := range p.Recv {
		p.Recv[i] = nil
	}
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			if a != b {
				p.Envs[a].Send(b, ProbeMsg(a*n+b))
			}
		}
	}
	p.W.RunFor(5_000_000)
	out := ""
	for b := 0; b < n; b++ {
		for a := 0; a < n; a++ {
			if p.CountFrom(b, a) > 0 {
				out += fmt.Sprintf("%d>%d ", a, b)
			}
		}
	}
	return out
}

// Idle is a process that does nothing.
type Idle struct{}

// Boot implements simapi.Process.
func (Idle) Boot(simapi.Env) {}

// Receive implements simapi.Process.
func (Idle) Receive(int, simapi.Message) {}
