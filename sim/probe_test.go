package sim

// This file holds the probe: a passive test process that records what it
// receives and lets a test send and arm timers through its Env.

import (
	"testing"

	"github.com/felixsim/felixsim/sim/simapi"
)

// probeMsg is an immutable message (a value type, so duplicates share it).
type probeMsg uint64

func (m probeMsg) Digest() uint64 { return uint64(m)*0x9e3779b97f4a7c15 + 7 }

// boxMsg is a mutable message: duplicates must be clones.
type boxMsg struct{ n uint64 }

func (m *boxMsg) Digest() uint64        { return m.n + 11 }
func (m *boxMsg) Clone() simapi.Message { c := *m; return &c }

type received struct {
	from int
	atNs int64
	msg  simapi.Message
}

// probes is the shared record of every probe in one world.
type probes struct {
	w     *World
	envs  []simapi.Env
	recv  [][]received
	boots []int
}

type probe struct {
	id int
	p  *probes
}

func (pr *probe) Boot(env simapi.Env) { pr.p.envs[pr.id] = env; pr.p.boots[pr.id]++ }
func (pr *probe) Receive(from int, msg simapi.Message) {
	pr.p.recv[pr.id] = append(pr.p.recv[pr.id], received{from: from, atNs: pr.p.w.NowNs(), msg: msg})
}

// probeWorld builds n probes with the given link; it boots them (runs time
// 0) and registers Close with t.
func probeWorld(t *testing.T, seed uint64, n int, link LinkConfig, edit func(*Config)) (*World, *probes) {
	t.Helper()
	p := &probes{envs: make([]simapi.Env, n), recv: make([][]received, n), boots: make([]int, n)}
	specs := make([]NodeSpec, n)
	for i := range specs {
		id := i
		specs[i] = NodeSpec{Name: "probe", New: func() simapi.Process { return &probe{id: id, p: p} }}
	}
	cfg := Config{Seed: seed, Nodes: specs, Link: link, RecordTrace: true}
	if edit != nil {
		edit(&cfg)
	}
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	p.w = w
	w.RunFor(0)
	return w, p
}

// fixedLink is a lossless link with a constant 1 ms latency.
var fixedLink = LinkConfig{LatencyMinNs: 1_000_000, LatencyMaxNs: 1_000_000}

// countFrom counts messages node to received from node from.
func (p *probes) countFrom(to, from int) int {
	c := 0
	for _, r := range p.recv[to] {
		if r.from == from {
			c++
		}
	}
	return c
}
