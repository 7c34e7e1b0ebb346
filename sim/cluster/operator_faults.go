package cluster

import (
	"fmt"
	"slices"

	"github.com/felixsim/felixsim/node"
)

// The operator's plan faults beyond a disk replacement (see replace.go):
// a broker demoted to a learner and made a voter again (a membership
// change under load), and a retention step (every scope keeps only its
// newest records).

// VotersMin is the fewest voters a demotion leaves: with fewer, one more
// lost broker would leave no quorum possible.
const VotersMin = 2

// SetVoter implements world.Operator: broker slot simID's current identity
// becomes a learner in every group (voter false) or a voter again once
// caught up (true). A demotion that would leave fewer than VotersMin
// voters changes nothing; it reports whether the target changed.
func (c *Cluster) SetVoter(simID int, voter bool) bool {
	if simID < 0 || simID >= c.cfg.Brokers {
		return false // not a broker
	}
	id := c.IdentityOf(simID)
	from, to := &c.target.Voters, &c.target.Learners
	if voter {
		from, to = to, from
	}
	i := slices.Index(*from, id)
	if i < 0 || !voter && len(c.target.Voters) <= VotersMin {
		return false
	}
	*from = slices.Delete(*from, i, i+1)
	*to = append(*to, id)
	slices.Sort(*to)
	c.membershipChanges++
	c.armOperator()
	return true
}

// Retain implements world.Operator: every stream shard group's leader
// proposes dropping all but the newest keepRecords records of each scope
// (node.ProposeRetain). It reports whether any leader proposed a drop.
func (c *Cluster) Retain(keepRecords int64) bool {
	proposed := 0
	for g := node.MetaGroup + 1; g <= uint64(c.Groups()); g++ {
		lead, ok := c.Leader(g)
		if !ok {
			continue
		}
		n, err := c.Node(lead).ProposeRetain(g, uint64(max(keepRecords, 0)))
		if err != nil {
			panic(fmt.Sprintf("cluster: operator retain: %v", err)) // a stream shard group the cluster named: a bug
		}
		if n > 0 {
			c.brokers[SimID(lead)].inputTaken()
		}
		proposed += n
	}
	return proposed > 0
}

// MembershipChanges counts the demotions and promotions the operator was
// asked for (plan faults), apart from replacements.
func (c *Cluster) MembershipChanges() int { return c.membershipChanges }
