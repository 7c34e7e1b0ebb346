package cluster

import (
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/node"
)

// Snapshot is a consistent cut of every running broker's replica state,
// taken between two events of the single-threaded world.
type Snapshot struct {
	AtNs int64
	// Replicas are the running brokers' views, in broker slot order.
	Replicas []node.ReplicaState
	// Down are the raft ids of brokers that are down, paused or failed.
	Down []uint64
}

// Snapshot captures every broker's replica state now.
func (c *Cluster) Snapshot() Snapshot { return c.snapshot((*node.Node).ReplicaState) }

// Outline is Snapshot without the shards' retained logs and state views
// (node.Node.ReplicaOutline): their windows and consumer groups only. A
// checker reads the logs a scope at a time (ScopeStates).
func (c *Cluster) Outline() Snapshot { return c.snapshot((*node.Node).ReplicaOutline) }

func (c *Cluster) snapshot(state func(*node.Node) node.ReplicaState) Snapshot {
	s := Snapshot{AtNs: c.World.NowNs()}
	for i := 0; i < c.cfg.Brokers; i++ {
		n := c.Node(RaftID(i))
		if n == nil {
			s.Down = append(s.Down, c.IdentityOf(i))
			continue
		}
		s.Replicas = append(s.Replicas, state(n))
	}
	return s
}

// BrokerScope is one running broker's state of one scope.
type BrokerScope struct {
	// Node is the broker's raft id; Held is false when it holds no such
	// scope (State is then empty).
	Node  uint64
	Held  bool
	State node.ScopeState
}

// ScopeStates are every running broker's state of scope s now, in the
// order Snapshot lists the brokers: what Snapshot holds of s.
func (c *Cluster) ScopeStates(s felix.Scope) []BrokerScope {
	var out []BrokerScope
	for i := 0; i < c.cfg.Brokers; i++ {
		if n := c.Node(RaftID(i)); n != nil {
			st, held := n.ScopeState(s)
			out = append(out, BrokerScope{Node: n.ID(), Held: held, State: st})
		}
	}
	return out
}
