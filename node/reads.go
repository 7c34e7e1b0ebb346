package node

import (
	"fmt"

	"github.com/felixsim/felixsim/wire"
)

// startRead begins a linearizable state read: raft's ReadIndex confirms
// this node still leads (a heartbeat round with a quorum) and returns the
// commit index; the read is answered once that index is applied.
func (n *Node) startRead(client uint64, req *wire.Request, g *raftGroup, body *wire.StateGet) {
	if n.leaseRead(client, req, g, body) {
		return
	}
	if n.reads.len() >= n.cfg.PendingReadsMax {
		n.answer(client, req.ID, &wire.Error{Code: wire.CodeUnavailable, Message: fmt.Sprintf("node %d has %d reads pending, the cap", n.cfg.ID, n.reads.len())})
		return
	}
	n.seq++
	r := &pendingRead{seq: n.seq, client: client, reqID: req.ID, group: g.id, tenant: req.Scope.Tenant, key: body.Key, arrivedTick: n.ticks}
	r.atArrival = n.valueAtArrival(g, r.tenant, r.key)
	n.reads.add(r)
	n.trace.readStart(g, client, req.ID, r.tenant, r.key)
	g.rn.ReadIndex(n.reads.readContext(n.seq))
}

// serveReads answers g's reads whose read index is applied.
func (n *Node) serveReads(g *raftGroup) {
	for _, r := range n.reads.takeReady(g.id, g.applied) {
		v := r.atArrival
		if v == nil {
			v = n.stateValue(g, r.tenant, r.key)
		}
		n.trace.stateRead(g, r.client, r.reqID, r.tenant, r.key, r.index, v)
		n.answer(r.client, r.reqID, v)
	}
}

// stateValue reads key from the tenant's applied state.
func (n *Node) stateValue(g *raftGroup, tenant, key string) *wire.StateValue {
	s := g.lookup(tenant)
	if s == nil {
		return &wire.StateValue{}
	}
	v, version, ok := s.StateGet(key)
	if !ok {
		return &wire.StateValue{}
	}
	return &wire.StateValue{Found: true, Value: append([]byte(nil), v...), Version: version}
}

// dropReads answers every read pending on g with NotLeader when this node
// stops leading it: a read has no effect, so the client may retry at once
// with the new leader instead of waiting for its timeout.
func (n *Node) dropReads(g *raftGroup) {
	for _, r := range n.reads.takeGroup(g.id) {
		n.answer(r.client, r.reqID, &wire.Error{Code: wire.CodeNotLeader, Message: fmt.Sprintf("node %d lost the lead of group %d", n.cfg.ID, g.id), LeaderHint: g.lead})
	}
}
