package cluster

import (
	"fmt"
	"slices"
	"strings"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/node"
)

// Replacing a broker that lost its store.
//
// A broker slot (a sim process and its disk) runs one raft identity at a
// time. When its disk is replaced (a plan's disk replacement, or a store
// that refuses to open as corrupt, whose disk the operator then
// replaces), the slot's next identity boots on the empty disk as a
// joining node (node.Config.Join): the old identity must never come back
// with an empty log, since it could vote twice in a term it already voted
// in. The cluster's operator then moves every group, the metadata group
// included, to the new membership: the old identity removed and the new
// one added as a learner, which catches up by snapshot and is promoted
// once its stored log holds the leader's committed prefix (node.StepMembership).

// RaftIDStride separates one slot's identities: broker slot i's identity
// of generation k has raft id RaftID(i) + k*RaftIDStride, so SimID maps
// every identity back to its slot.
const RaftIDStride = node.PeersMax

// OperatorStepNs is how often the operator steps pending membership work.
const OperatorStepNs = 50_000_000

// ReplacementsMax caps the replacements a run records; later ones are
// carried out but not listed.
const ReplacementsMax = 64

// Replacement is one broker identity replaced by a new one on a new disk.
type Replacement struct {
	Slot   int    `json:"slot"`
	Old    uint64 `json:"old"`
	New    uint64 `json:"new"`
	AtNs   int64  `json:"at_ns"`
	DoneNs int64  `json:"done_ns"` // 0 while the membership change is pending
	// Corrupt is set when the old identity's store refused to open as
	// corrupt (the operator replaced the disk), not by a plan's fault.
	Corrupt bool `json:"corrupt,omitempty"`
}

// IdentityOf is the raft id broker slot simID runs under now.
func (c *Cluster) IdentityOf(simID int) uint64 {
	return RaftID(simID) + c.gens[simID]*RaftIDStride
}

// ReplacementsBegun counts the broker replacements begun so far.
func (c *Cluster) ReplacementsBegun() int { return c.replacementsBegun }

// Replacements lists the broker replacements so far, in order.
func (c *Cluster) Replacements() []Replacement { return slices.Clone(c.replacements) }

// MembershipTarget is the membership the operator drives every group to.
func (c *Cluster) MembershipTarget() node.MembershipTarget {
	return node.MembershipTarget{Voters: slices.Clone(c.target.Voters), Learners: slices.Clone(c.target.Learners)}
}

// MembershipSettled reports whether no membership change is pending;
// pending says what is.
func (c *Cluster) MembershipSettled() (done bool, pending string) {
	if !c.operatorPending {
		return true, ""
	}
	return false, "membership change pending: " + c.operatorLast
}

// DiskReplaced implements world.Operator: broker slot simID's disk was just
// replaced. The slot boots next under a new identity that joins every
// group, and the operator starts moving the groups to it. Under the
// RejoinOldIdentity defect the operator forgets to: the slot boots under
// its old identity on the empty disk and bootstraps.
func (c *Cluster) DiskReplaced(simID int) {
	if simID < 0 || simID >= c.cfg.Brokers {
		return // not a broker
	}
	if c.cfg.Defects.RejoinOldIdentity {
		return
	}
	old := c.IdentityOf(simID)
	c.gens[simID]++
	id := c.IdentityOf(simID)
	for _, list := range []*[]uint64{&c.target.Voters, &c.target.Learners} {
		if i := slices.Index(*list, old); i >= 0 {
			(*list)[i] = id
			slices.Sort(*list)
		}
	}
	c.replacementsBegun++
	c.cfg.Counts.Add(coverage.BrokerReplaced)
	if len(c.replacements) < ReplacementsMax {
		c.replacements = append(c.replacements, Replacement{Slot: simID, Old: old, New: id, AtNs: c.World.NowNs(), Corrupt: c.corruptNow})
	}
	c.armOperator()
}

// replaceCorrupt has the operator replace the disk of broker slot simID,
// whose store refused to open as corrupt: it boots again later, empty,
// under a new identity.
func (c *Cluster) replaceCorrupt(simID int) {
	w := c.World
	w.At(w.NowNs(), uint64(simID), func() {
		c.corruptNow = true
		w.ReplaceDisk(simID, c.cfg.RestartAfterFailNs)
		c.corruptNow = false
	})
}

// armOperator schedules the operator's next step unless one is pending.
func (c *Cluster) armOperator() {
	if !c.operatorPending && c.cfg.MembershipBegun != nil {
		defer c.cfg.MembershipBegun()
	}
	c.operatorPending = true
	if c.operatorArmed {
		return
	}
	c.operatorArmed = true
	c.World.At(c.World.NowNs()+OperatorStepNs, 0, c.operatorStep)
}

// operatorStep asks every group's leader to take the next step towards
// the target membership; it re-arms until every group's leader reports
// the target applied.
func (c *Cluster) operatorStep() {
	c.operatorArmed = false
	var pending []string
	for g := uint64(1); g <= uint64(c.Groups()); g++ {
		lead, ok := c.Leader(g)
		if !ok {
			pending = append(pending, fmt.Sprintf("group %d has no leader", g))
			continue
		}
		n := c.Node(lead)
		st, err := n.StepMembership(g, c.target)
		if err != nil {
			panic(fmt.Sprintf("cluster: operator: %v", err)) // the target is the cluster's own: a bug
		}
		c.brokers[SimID(lead)].inputTaken()
		c.countPromotions(g, &st)
		if !st.Done {
			pending = append(pending, fmt.Sprintf("group %d at voters %v learners %v", g, st.Voters, st.Learners))
		}
	}
	if len(pending) > 0 {
		c.operatorLast = strings.Join(pending, "; ")
		c.armOperator()
		return
	}
	c.operatorPending, c.operatorLast = false, ""
	for i := range c.replacements {
		if c.replacements[i].DoneNs == 0 {
			c.replacements[i].DoneNs = c.World.NowNs()
		}
	}
}
