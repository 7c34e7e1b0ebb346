package node

import (
	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/tracker"
)

// GroupStatus is one raft group as a node sees it, for saying why a group
// makes no progress: its role and term, the leader it believes in, how
// far its log and commit mark reach and, on a leader, each member's
// replication.
type GroupStatus struct {
	Group uint64
	// Role is raft's state name: StateLeader, StateFollower,
	// StateCandidate or StatePreCandidate.
	Role string
	// Term and Vote are the current term and the vote cast in it (0:
	// none); Lead is the leader believed in (0: none known).
	Term, Vote, Lead uint64
	// Commit is the commit mark; LastIndex the last index of the log (all
	// of it stored: the node persists each Ready before the next);
	// Applied the index applied last.
	Commit, LastIndex, Applied uint64
	// Peers is, on a leader, every member's replication as the leader
	// tracks it, ascending by id (itself included); empty elsewhere.
	Peers []PeerProgress
}

// Leads reports whether the node leads the group (Role is StateLeader).
func (s *GroupStatus) Leads() bool { return s.Role == raft.StateLeader.String() }

// PeerProgress is a leader's view of one member's replication.
type PeerProgress struct {
	ID uint64
	// Match is the highest index known to match the leader's log; Next
	// the next index the leader sends.
	Match, Next uint64
	// State is raft's name for the flow: StateProbe (finding where the
	// logs agree, one append at a time), StateReplicate or StateSnapshot.
	State string
	// Learner marks a non-voting member; RecentActive that it was heard
	// from within the last election timeout; Paused that the leader has
	// stopped sending it appends until it answers.
	Learner, RecentActive, Paused bool
}

// GroupStatus returns group's status on this node, false if the node
// hosts no such group.
func (n *Node) GroupStatus(group uint64) (GroupStatus, bool) {
	g := n.raftGroup(group)
	if g == nil {
		return GroupStatus{}, false
	}
	st := g.rn.BasicStatus()
	last, _ := n.store.RaftStorage(g.id).LastIndex()
	out := GroupStatus{Group: group, Role: st.RaftState.String(), Term: st.GetTerm(), Vote: st.GetVote(), Lead: st.Lead,
		Commit: st.GetCommit(), LastIndex: last, Applied: g.applied}
	if st.RaftState == raft.StateLeader {
		g.rn.WithProgress(func(id uint64, typ raft.ProgressType, pr tracker.Progress) {
			out.Peers = append(out.Peers, PeerProgress{ID: id, Match: pr.Match, Next: pr.Next, State: pr.State.String(),
				Learner: typ == raft.ProgressTypeLearner, RecentActive: pr.RecentActive, Paused: pr.MsgAppFlowPaused})
		})
	}
	return out, true
}
