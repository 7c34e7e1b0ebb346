package world

import "fmt"

// raftDraws is the reader a run installs as crypto/rand.Reader, which etcd
// raft reads for its randomized election timeouts. Each node has its own
// keyed stream (see instantDraws), and the harness one more, so an
// election that a removed fault or operation adds or takes away on one
// node moves no other node's timeouts, nor that node's later ones.
type raftDraws struct {
	w *World
	// nodes is each node's stream by node ID, then the harness's.
	nodes []instantDraws
}

func newRaftDraws(seed uint64, nodes int) *raftDraws {
	d := &raftDraws{nodes: make([]instantDraws, nodes+1)}
	for i := range nodes {
		d.nodes[i] = newInstantDraws(seed, fmt.Sprintf("raft/%d", i))
	}
	d.nodes[nodes] = newInstantDraws(seed, "raft/harness")
	return d
}

// Read fills p from the stream of the node running now, keyed by the
// current event's time. Like crypto/rand.Reader it never fails.
func (d *raftDraws) Read(p []byte) (int, error) {
	i := d.w.curNode
	if i < 0 {
		i = len(d.nodes) - 1
	}
	return d.nodes[i].at(d.w.nowNs).Read(p)
}
