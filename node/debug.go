package node

import (
	"fmt"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/tracker"
)

// DebugProgress describes group's raft progress on this node, one line
// per peer (leader only), for diagnosing stuck replication.
func (n *Node) DebugProgress(group uint64) []string {
	g := n.raftGroup(group)
	if g == nil {
		return nil
	}
	st := g.rn.BasicStatus()
	out := []string{fmt.Sprintf("node %d group %d: state %s term %d commit %d applied %d lead %d", n.cfg.ID, group, st.RaftState, st.GetTerm(), st.GetCommit(), g.applied, st.Lead)}
	g.rn.WithProgress(func(id uint64, _ raft.ProgressType, pr tracker.Progress) {
		out = append(out, fmt.Sprintf("  peer %d: %s match %d next %d paused %v recent %v", id, pr.State, pr.Match, pr.Next, pr.MsgAppFlowPaused, pr.RecentActive))
	})
	return out
}
