package properties

import (
	"fmt"
	"slices"
)

// GroupStatesAgree checks GroupStateAgreement on replicas taken after
// quiesce (every broker has applied the same log): every broker holds the
// same consumer groups in the same scopes, each with the same committed
// position, next offset to hand out and leases (offset and expiry). It
// compares every replica with the first; a replica whose scopes or groups
// are not ascending is refused.
func GroupStatesAgree(replicas []GroupReplica) error {
	for i := range replicas {
		if err := checkGroupReplicaSorted(&replicas[i]); err != nil {
			return err
		}
	}
	for i := 1; i < len(replicas); i++ {
		if err := groupReplicasEqual(&replicas[0], &replicas[i]); err != nil {
			return InvariantGroupStateAgreement.Errorf("%v", err)
		}
	}
	return nil
}

func checkGroupReplicaSorted(r *GroupReplica) error {
	for i := range r.Scopes {
		if i > 0 && !r.Scopes[i-1].Scope.Less(r.Scopes[i].Scope) {
			return fmt.Errorf("group replica %s refused: scope %s after %s (not strictly ascending)", r.Broker, r.Scopes[i].Scope, r.Scopes[i-1].Scope)
		}
		gs := r.Scopes[i].Groups
		for j := 1; j < len(gs); j++ {
			if gs[j].Name <= gs[j-1].Name {
				return fmt.Errorf("group replica %s refused: scope %s group %q after %q (not strictly ascending)", r.Broker, r.Scopes[i].Scope, gs[j].Name, gs[j-1].Name)
			}
		}
	}
	return nil
}

// groupReplicasEqual names the first difference between a and b.
func groupReplicasEqual(a, b *GroupReplica) error {
	i, j := 0, 0
	for i < len(a.Scopes) || j < len(b.Scopes) {
		switch {
		case j == len(b.Scopes) || i < len(a.Scopes) && a.Scopes[i].Scope.Less(b.Scopes[j].Scope):
			return fmt.Errorf("scope %s: %s holds groups %s, %s none", a.Scopes[i].Scope, a.Broker, groupNames(a.Scopes[i].Groups), b.Broker)
		case i == len(a.Scopes) || b.Scopes[j].Scope.Less(a.Scopes[i].Scope):
			return fmt.Errorf("scope %s: %s holds groups %s, %s none", b.Scopes[j].Scope, b.Broker, groupNames(b.Scopes[j].Groups), a.Broker)
		}
		if err := scopeGroupsEqual(a.Broker, b.Broker, &a.Scopes[i], &b.Scopes[j]); err != nil {
			return err
		}
		i++
		j++
	}
	return nil
}

func scopeGroupsEqual(na, nb string, a, b *ScopeGroups) error {
	if !slices.Equal(groupNames(a.Groups), groupNames(b.Groups)) {
		return fmt.Errorf("scope %s: %s holds groups %s, %s holds %s", a.Scope, na, groupNames(a.Groups), nb, groupNames(b.Groups))
	}
	for k := range a.Groups {
		ga, gb := &a.Groups[k], &b.Groups[k]
		if ga.CommittedOffset != gb.CommittedOffset || ga.DeliverNextOffset != gb.DeliverNextOffset || !slices.Equal(ga.Leases, gb.Leases) {
			return fmt.Errorf("scope %s group %q: %s holds %s, %s holds %s", a.Scope, ga.Name, na, formatGroup(ga), nb, formatGroup(gb))
		}
	}
	return nil
}

func groupNames(gs []GroupView) []string {
	out := make([]string, len(gs))
	for i := range gs {
		out[i] = gs[i].Name
	}
	return out
}

// groupLeasesShownMax caps the leases a message lists.
const groupLeasesShownMax = 8

// formatGroup renders a group's state for a message.
func formatGroup(g *GroupView) string {
	s := fmt.Sprintf("committed %d, deliver-next %d, %d lease(s)", g.CommittedOffset, g.DeliverNextOffset, len(g.Leases))
	for i, l := range g.Leases {
		if i == groupLeasesShownMax {
			s += " …"
			break
		}
		s += fmt.Sprintf(" %d@%d", l.Offset, l.ExpiryNs)
	}
	return s
}
