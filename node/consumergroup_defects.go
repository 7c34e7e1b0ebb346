package node

import (
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/logstore"
	"github.com/felixsim/felixsim/moment"
	"github.com/felixsim/felixsim/statemachine"
)

// fetchNowNs is the time a fetch's leases are judged by: the proposer's
// clock time carried in the command, so every replica applies the same
// fetch identically; under the LeaseByLocalClock defect, the applying
// replica's own clock.
func (n *Node) fetchNowNs(c *command) int64 {
	if n.cfg.Defects.LeaseByLocalClock {
		return n.host.NowNs()
	}
	return c.nowNs
}

// ack applies a group ack to s: Ack, or the planted defect's version.
func (n *Node) ack(s *statemachine.Shard, cmd statemachine.GroupAck) error {
	var err error
	switch {
	case n.cfg.Defects.RedeliverAcked:
		err = s.AckOldestOnly(cmd)
	case n.cfg.Defects.AckDropsOlderLeases:
		err = s.AckDropsOlderLeases(cmd)
	default:
		err = s.Ack(cmd)
	}
	if err == nil {
		n.reached.add(moment.GroupAckDurable)
	}
	return err
}

// installOldGroups is the InstallKeepsOldGroups defect: it replaces the
// consumer-group rows a snapshot install added to b (from index from on)
// by those of the groups the replica held before (old; none when the
// scope is new to it, as on a replacement broker), while memory holds
// the snapshot's.
func (n *Node) installOldGroups(b *logstore.Batch, from int, scope felix.Scope, old *statemachine.Shard) {
	if !n.cfg.Defects.InstallKeepsOldGroups {
		return
	}
	clear(b.ConsumerGroups[from:])
	b.ConsumerGroups = b.ConsumerGroups[:from]
	if old == nil {
		return
	}
	for _, gs := range old.Groups() {
		b.ConsumerGroups = append(b.ConsumerGroups, logstore.ConsumerGroupRow{Scope: scope, Group: gs})
	}
}
