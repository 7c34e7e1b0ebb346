package world

import (
	"fmt"

	"github.com/felixsim/felixsim/sim/prng"
	"github.com/felixsim/felixsim/sim/simapi"
)

// Drop reasons, folded into a drop event's detail.
const (
	dropPartition uint64 = iota + 1
	dropLoss
	dropDead
	dropHeldFull
)

var dropReasonNames = [...]string{"?", "partition", "loss", "dead", "held-full"}

// dropDetail packs a drop's reason into the top 4 bits of its trace detail
// and the message digest into the rest, so a printed trace says why.
func dropDetail(reason, digest uint64) uint64 { return reason<<60 | digest&(1<<60-1) }

// DropReason names why a drop event's message was dropped.
func DropReason(e TraceEvent) string {
	if r := e.Detail >> 60; e.Kind == EvDrop && r < uint64(len(dropReasonNames)) {
		return dropReasonNames[r]
	}
	return ""
}

// network holds per-link behaviour and the partition matrix; both are
// indexed from*n+to.
type network struct {
	n       int
	base    []LinkConfig // as configured; Heal restores it
	links   []LinkConfig // as faulted right now
	blocked []bool
	// cutBy and linkBy name the plan fault behind each cut and each
	// faulted part of a link (for counting effects).
	cutBy  []faultCause
	linkBy []linkCauses
	// draws is each link's keyed stream (see instantDraws): a message's
	// loss, latency, duplication and reordering depend on its link, its
	// send instant and its rank there, not on the messages sent before
	// it, so removing an operation or a fault moves no other message.
	draws []instantDraws
	// rand is the generator of the message being sent (set by send).
	rand *prng.Rand
}

func newNetwork(cfg *Config) network {
	n := len(cfg.Nodes)
	net := network{n: n, base: make([]LinkConfig, n*n), blocked: make([]bool, n*n),
		cutBy: make([]faultCause, n*n), linkBy: make([]linkCauses, n*n), draws: make([]instantDraws, n*n)}
	for i := range net.base {
		net.base[i] = cfg.Link
		net.draws[i] = newInstantDraws(cfg.Seed, fmt.Sprintf("network/%d->%d", i/n, i%n))
	}
	for _, o := range cfg.Links {
		net.base[o.From*n+o.To] = o.Link
	}
	net.links = append([]LinkConfig(nil), net.base...)
	return net
}

// send draws the fate of one message from -> to: dropped by a partition or
// by loss, or delivered after a latency (once or, duplicated, twice).
func (w *World) send(from, to int, msg simapi.Message) {
	net := &w.net
	i := from*net.n + to
	link := &net.links[i]
	net.rand = net.draws[i].at(w.nowNs)
	if net.blocked[i] {
		w.effect(net.cutBy[i])
		w.trace(EvDrop, int32(to), int32(from), dropDetail(dropPartition, msg.Digest()))
		return
	}
	if net.rand.ChancePpm(link.LossPpm) {
		w.effect(net.linkBy[i].loss)
		w.trace(EvDrop, int32(to), int32(from), dropDetail(dropLoss, msg.Digest()))
		return
	}
	w.scheduleDelivery(from, to, msg, i)
	if net.rand.ChancePpm(link.DuplicatePpm) {
		w.effect(net.linkBy[i].duplicate)
		dup := msg
		if c, ok := msg.(simapi.Cloner); ok {
			dup = c.Clone()
		}
		w.scheduleDelivery(from, to, dup, i)
	}
}

// scheduleDelivery draws the latency of a message on link i and queues it.
func (w *World) scheduleDelivery(from, to int, msg simapi.Message, i int) {
	r, link := w.net.rand, &w.net.links[i]
	latencyNs := link.LatencyMinNs
	switch {
	case link.LatencyTailPpm > 0 && r.ChancePpm(link.LatencyTailPpm):
		latencyNs = r.Int63nRange(link.LatencyMaxNs, max(link.LatencyMaxNs, link.LatencyTailMaxNs))
	case link.LatencyMaxNs > link.LatencyMinNs:
		latencyNs = r.Int63nRange(link.LatencyMinNs, link.LatencyMaxNs)
	}
	if latencyNs > w.net.base[i].LatencyMaxNs {
		w.effect(w.net.linkBy[i].latency)
	}
	if link.ReorderDelayMaxNs > 0 && r.ChancePpm(link.ReorderPpm) {
		w.effect(w.net.linkBy[i].reorder)
		latencyNs += r.Int63nRange(0, link.ReorderDelayMaxNs)
	}
	w.q.push(event{atNs: w.nowNs + w.busyNs + latencyNs, kind: EvDeliver, node: int32(to), peer: int32(from), msg: msg})
}

func (w *World) deliver(ev event) {
	n := w.nodes[ev.node]
	switch n.status {
	case statusDown:
		w.trace(EvDrop, ev.node, ev.peer, dropDetail(dropDead, ev.msg.Digest()))
		return
	case statusPaused:
		w.hold(n, ev)
		return
	}
	w.trace(EvDeliver, ev.node, ev.peer, ev.msg.Digest())
	proc := n.proc
	w.runNode(n, func() { proc.Receive(int(ev.peer), ev.msg) })
}

// Linked reports whether the directed link from -> to is not cut (it may
// still lose, delay or duplicate messages).
func (w *World) Linked(from, to int) bool {
	w.node(from)
	w.node(to)
	return !w.net.blocked[from*w.net.n+to]
}

// LinkAtBaseline reports whether the directed link from -> to is not cut
// and behaves as configured: no link fault (loss, latency, duplication,
// reordering) is on.
func (w *World) LinkAtBaseline(from, to int) bool {
	i := from*w.net.n + to
	return w.Linked(from, to) && w.net.links[i] == w.net.base[i]
}

// Block cuts the directed link from -> to (a one-way partition).
func (w *World) Block(from, to int) {
	w.node(from)
	w.node(to)
	w.net.blocked[from*w.net.n+to] = true
	w.net.cutBy[from*w.net.n+to] = w.cause
}

// Partition cuts the links between a and b both ways.
func (w *World) Partition(a, b int) {
	w.Block(a, b)
	w.Block(b, a)
}

// Isolate cuts every link to and from id.
func (w *World) Isolate(id int) {
	for o := 0; o < w.net.n; o++ {
		if o != id {
			w.Partition(id, o)
		}
	}
}

// Split cuts every link between the nodes in mask and the rest.
func (w *World) Split(mask uint64) {
	for a := 0; a < w.net.n; a++ {
		for b := 0; b < w.net.n; b++ {
			if (mask>>a)&1 == 1 && (mask>>b)&1 == 0 {
				w.Partition(a, b)
			}
		}
	}
}

// Bridge splits the nodes in mask from the rest, except that bridge keeps
// its links to both sides.
func (w *World) Bridge(bridge int, mask uint64) {
	w.node(bridge)
	w.Split(mask)
	for o := 0; o < w.net.n; o++ {
		i, j := bridge*w.net.n+o, o*w.net.n+bridge
		w.net.blocked[i], w.net.blocked[j] = false, false
	}
}

// HealNetwork removes every partition and restores every link's baseline.
func (w *World) HealNetwork() {
	for i := range w.net.links {
		if w.net.blocked[i] || w.net.links[i] != w.net.base[i] {
			w.effect(w.cause)
			break
		}
	}
	clear(w.net.blocked)
	clear(w.net.cutBy)
	clear(w.net.linkBy)
	copy(w.net.links, w.net.base)
}

// SetLinks changes every link's behaviour with edit (a network-wide fault).
func (w *World) SetLinks(edit func(*LinkConfig)) {
	for i := range w.net.links {
		was := w.net.links[i]
		edit(&w.net.links[i])
		noteLinkCauses(&w.net.linkBy[i], was, w.net.links[i], w.cause)
	}
}

// CutPeers cuts every link, both ways, between id and the other nodes that
// are not fault-exempt (a cluster's brokers), and keeps its links with the
// fault-exempt nodes (the clients): a node its peers cannot reach but its
// clients can. If restoreAfterNs > 0 those links return that much later.
func (w *World) CutPeers(id int, restoreAfterNs int64) { w.cutClass(id, false, restoreAfterNs) }

// CutExempt cuts every link, both ways, between id and the fault-exempt
// nodes (a cluster's clients), and keeps its links with the other nodes:
// a node its clients cannot reach but its peers can. If restoreAfterNs > 0
// those links return that much later.
func (w *World) CutExempt(id int, restoreAfterNs int64) { w.cutClass(id, true, restoreAfterNs) }

// cutClass blocks the links between id and every other node whose
// fault-exemption is exempt, and schedules their return.
func (w *World) cutClass(id int, exempt bool, restoreAfterNs int64) {
	w.node(id)
	w.setClassBlocked(id, exempt, true)
	if restoreAfterNs > 0 {
		detail := uint64(id)<<1 | b2u(exempt)
		w.At(w.nowNs+restoreAfterNs, detail, func() { w.setClassBlocked(id, exempt, false) })
	}
}

func (w *World) setClassBlocked(id int, exempt, blocked bool) {
	n := w.net.n
	for o := 0; o < n; o++ {
		if o != id && w.nodes[o].spec.FaultExempt == exempt {
			w.net.blocked[id*n+o], w.net.blocked[o*n+id] = blocked, blocked
			w.net.cutBy[id*n+o], w.net.cutBy[o*n+id] = w.cause, w.cause
		}
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
