package cluster

import (
	"fmt"
	"strings"
)

// Leader returns the raft id of the running broker that leads group with
// the highest term among running brokers, and whether one does. Two
// leaders in different terms can coexist briefly (the old one partitioned);
// the one in the higher term is the real one.
func (c *Cluster) Leader(group uint64) (uint64, bool) {
	var best, bestTerm uint64
	for i := 0; i < c.cfg.Brokers; i++ {
		n := c.Node(RaftID(i))
		if n == nil {
			continue
		}
		term, leader := n.LeaderTerm(group)
		if leader && term >= bestTerm {
			best, bestTerm = n.ID(), term
		}
	}
	return best, best != 0
}

// RoleLeader is the plan role a fault names to hit whoever leads when it
// fires (see faultplan.FaultEvent.Role).
const RoleLeader = "leader"

// resolveRole is the world's world.Config.ResolveRole: RoleLeader names the
// running leader of the lowest-numbered shard group that has one, else the
// metadata group's leader, so a fault aimed at it forces a failover of a
// shard the workload writes to.
func (c *Cluster) resolveRole(role string) (simID int, ok bool) {
	if role != RoleLeader {
		return 0, false
	}
	for g := uint64(2); g <= uint64(c.Groups()); g++ {
		if id, led := c.Leader(g); led {
			return SimID(id), true
		}
	}
	if id, led := c.Leader(1); led {
		return SimID(id), true
	}
	return 0, false
}

// AllLed reports whether every group has a running leader; pending names
// the groups without one (for world.World.RunUntil).
func (c *Cluster) AllLed() (done bool, pending string) {
	var missing []string
	for g := uint64(1); g <= uint64(c.Groups()); g++ {
		if _, ok := c.Leader(g); !ok {
			missing = append(missing, fmt.Sprint(g))
		}
	}
	if len(missing) == 0 {
		return true, ""
	}
	return false, "groups without a leader: " + strings.Join(missing, ",")
}

// TransferLeadership asks group's current leader to hand leadership to
// broker to; it reports whether a leader was found to ask.
func (c *Cluster) TransferLeadership(group, to uint64) bool {
	lead, ok := c.Leader(group)
	if !ok {
		return false
	}
	return c.Node(lead).TransferLeadership(group, to)
}

// Failover kills group's current leader (losing its unsynced writes) and
// restarts it restartAfterNs later (never, if 0); it returns the killed
// leader's raft id, or 0 if the group had no leader.
func (c *Cluster) Failover(group uint64, restartAfterNs int64) uint64 {
	lead, ok := c.Leader(group)
	if !ok {
		return 0
	}
	c.World.Kill(SimID(lead), false, restartAfterNs)
	return lead
}
