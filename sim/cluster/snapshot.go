package cluster

import "github.com/felixsim/felixsim/node"

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
func (c *Cluster) Snapshot() Snapshot {
	s := Snapshot{AtNs: c.World.NowNs()}
	for i := 0; i < c.cfg.Brokers; i++ {
		n := c.Node(RaftID(i))
		if n == nil {
			s.Down = append(s.Down, c.IdentityOf(i))
			continue
		}
		s.Replicas = append(s.Replicas, n.ReplicaState())
	}
	return s
}
