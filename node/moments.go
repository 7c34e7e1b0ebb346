package node

import (
	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/logstore"
	"github.com/felixsim/felixsim/moment"
)

// Moments: points of a node's work that matter for crash recovery, each
// reported to the host (Config.OnMoment) once the Ready round that
// reached it is durable, so that a simulator can strike the node right
// there (a targeted fault). A round reaches
//
//   - MomentSnapshotInstalled when it installed a received snapshot;
//   - MomentGroupAckDurable when it applied a consumer-group ack;
//   - MomentCompacted when it compacted a raft log or retention dropped a
//     prefix of a scope's log (by count or by a retain command);
//   - MomentMembershipInFlight when it appended a conf change it has not
//     applied yet;
//   - MomentPendingHeld when it appended entries while the node holds
//     client proposals it has not answered, and MomentPendingHeldYoung
//     too when this incarnation has made at most
//     moment.YoungProposalsMax proposals (a restart right there leaves
//     proposals in the log whose sequence numbers the next incarnation
//     hands out again: PathSeqOfEarlierIncarnation);
//   - MomentReadsConfirmed when a group it leads had a ReadIndex return
//     (it serves the reads the index confirms next).
//
// Reporting changes nothing in the node.

// momentSet is the moments one round reached.
type momentSet uint32

func (s *momentSet) add(m moment.Moment) { *s |= 1 << uint(m) }

func (s momentSet) has(m moment.Moment) bool { return s&(1<<uint(m)) != 0 }

// noteRoundMoments adds the moments the round's Readies and batch show;
// retention and acks note theirs as they apply.
func (n *Node) noteRoundMoments(rds []groupReady, b *logstore.Batch) {
	appended := false
	for i := range rds {
		gr := &rds[i]
		if !raft.IsEmptySnap(gr.rd.Snapshot) {
			n.reached.add(moment.SnapshotInstalled)
		}
		if len(gr.rd.ReadStates) > 0 && gr.g.isLeader {
			n.reached.add(moment.ReadsConfirmed)
		}
		appended = appended || len(gr.rd.Entries) > 0
		for _, e := range gr.rd.Entries {
			if e.GetType() != raftpb.EntryType_EntryNormal && e.GetIndex() > gr.g.applied {
				n.reached.add(moment.MembershipInFlight)
			}
		}
	}
	for i := range b.Groups {
		if b.Groups[i].Compact != nil {
			n.reached.add(moment.Compacted)
		}
	}
	if appended && n.writes.len() > 0 {
		n.reached.add(moment.PendingHeld)
		if n.seq <= moment.YoungProposalsMax {
			n.reached.add(moment.PendingHeldYoung)
		}
	}
}

// reportMoments tells the host, in order, each moment the round reached.
// The host may end the process at any of them.
func (n *Node) reportMoments() {
	reached := n.reached
	n.reached = 0
	if n.cfg.OnMoment == nil || reached == 0 {
		return
	}
	for _, m := range moment.All() {
		if reached.has(m) {
			n.cfg.OnMoment(m)
		}
	}
}
