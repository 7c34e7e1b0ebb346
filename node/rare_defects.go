package node

import "github.com/felixsim/felixsim/wire"

// The planted bugs of the rare windows targeted faults reach: a lease read
// that trusts a leadership lost while the process was paused
// (LeaseReadByTicks, reached by pauseafter), and a restarted broker that
// answers a write with its earlier incarnation's proposal of the same
// sequence number (PendingMatchedBySeq, reached by restartafter's quick
// restart at pending_held or pending_held_young).

// leaseTicks is how long the LeaseReadByTicks defect trusts a leadership
// a ReadIndex confirmed, in the node's own ticks: half an election
// timeout, the usual margin of a leader lease (safe while every clock
// ticks at nearly one rate: no follower can elect another leader within
// an election timeout of the heartbeat it answered).
func (n *Node) leaseTicks() uint64 { return uint64(n.cfg.ElectionTicks / 2) }

// renewLease is the LeaseReadByTicks defect's lease: a ReadIndex that
// returned on a group this node leads confirms its leadership now, and
// the lease runs leaseTicks ticks from here.
func (n *Node) renewLease(gr *groupReady) {
	if n.cfg.Defects.LeaseReadByTicks && len(gr.rd.ReadStates) > 0 && gr.g.isLeader {
		gr.g.leaseUntil = n.ticks + n.leaseTicks()
	}
}

// leaseRead is the LeaseReadByTicks defect: a node that believes it leads
// g and holds a lease serves a state read from its applied state at once,
// without a ReadIndex. It reports whether it answered the read.
func (n *Node) leaseRead(client uint64, req *wire.Request, g *raftGroup, body *wire.StateGet) bool {
	if !n.cfg.Defects.LeaseReadByTicks || !g.isLeader || n.ticks >= g.leaseUntil {
		return false
	}
	v := n.stateValue(g, req.Scope.Tenant, body.Key) // planted bug: a leadership the ticks vouch for
	n.trace.stateRead(g, req.Scope.Tenant, body.Key, v)
	n.answer(client, req.ID, v)
	return true
}

// takePending removes and returns the write this node proposed as
// (incarnation, seq): pendingWrites.take, but under the
// PendingMatchedBySeq defect an entry of an earlier incarnation takes the
// write this one gave the same seq.
func (n *Node) takePending(incarnation, seq uint64) *pendingWrite {
	if n.cfg.Defects.PendingMatchedBySeq && n.writes.sharesSeq(incarnation, seq) {
		n.notePath(PathSeqOfEarlierIncarnation)
		return n.writes.take(n.writes.incarnation, seq) // planted bug: the seq alone names the write
	}
	return n.writes.take(incarnation, seq)
}
