package cluster

import "github.com/felixsim/felixsim/coverage"

// leaderships remembers, per raft group, the last leader any broker
// reported becoming (node.Config.OnLeader) and how often the group failed
// over, across every incarnation of every broker.
type leaderships struct {
	// lead, term and failovers are indexed by group id (0 unused).
	lead, term []uint64
	failovers  []int
}

func newLeaderships(groups int) leaderships {
	return leaderships{lead: make([]uint64, groups+1), term: make([]uint64, groups+1), failovers: make([]int, groups+1)}
}

// onLeader is broker raftID's node.Config.OnLeader: a promotion in a
// newer term of a broker other than the group's last leader is a failover
// (coverage.RaftFailover), and a failover after the group's first one is
// a second promotion (coverage.RaftPromotionSecond).
func (c *Cluster) onLeader(raftID uint64) func(group, term uint64) {
	return func(group, term uint64) {
		l := &c.leads
		if group >= uint64(len(l.lead)) || term <= l.term[group] {
			return
		}
		if prev := l.lead[group]; prev != 0 && prev != raftID {
			l.failovers[group]++
			c.cfg.Counts.Add(coverage.RaftFailover)
			if l.failovers[group] >= 2 {
				c.cfg.Counts.Add(coverage.RaftPromotionSecond)
			}
		}
		l.lead[group], l.term[group] = raftID, term
	}
}
