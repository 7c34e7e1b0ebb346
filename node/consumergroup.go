package node

import (
	"github.com/felixsim/felixsim/logstore"
)

// Consumer-group state is kept durable beside the applied records, in the
// same batch: one row of the store's consumer-group table per (scope,
// group), holding the group's position and leases. A restart restores every
// scope's groups from those rows, so fetch/ack effects survive it although
// raft does not re-apply their entries.

// groupTouch names one consumer group changed in this batch.
type groupTouch struct{ tenant, name string }

// addGroupRows writes the current state of every touched group of g.
func (n *Node) addGroupRows(b *logstore.Batch, g *raftGroup, touched []groupTouch) {
	for i, t := range touched {
		if dupBefore(touched[:i], t) {
			continue
		}
		s := g.lookup(t.tenant)
		if s == nil {
			continue
		}
		for _, st := range s.Groups() {
			if st.Name == t.name {
				b.ConsumerGroups = append(b.ConsumerGroups, logstore.ConsumerGroupRow{Scope: g.scopeOf(t.tenant), Group: st})
			}
		}
	}
}

func dupBefore(ts []groupTouch, t groupTouch) bool {
	for _, u := range ts {
		if u == t {
			return true
		}
	}
	return false
}
