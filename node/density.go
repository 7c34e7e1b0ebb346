package node

import (
	"fmt"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
)

// Density counts the raft work a host's brokers asked of etcd raft: every
// Tick and every proposal raft accepted, with its size. A host that
// shares one Density between its brokers (Config.Density) and across their
// incarnations learns how many groups, ticks and proposals per simulated
// second its run put through raft, the density at which a bare raft
// harness measures the floor (bench/bareraft). Counting changes nothing a
// node does.
type Density struct {
	// Ticks counts Node.Tick calls that ticked raft (a failed node's do
	// not); GroupTicks the RawNode ticks they made (one per raft group).
	Ticks, GroupTicks uint64
	// RaftGroupsMax is the most raft groups one node hosted at a tick.
	RaftGroupsMax int
	// Proposals counts the proposals raft accepted (Propose and
	// ProposeConfChange returned nil) at the node that made them: client
	// writes and consumer-group commands, outbox trims, retention and
	// fleet commands, stream markers, the planted defects' extra
	// proposals, and membership changes (ConfChanges counts those alone).
	// A metadata proposal a follower forwards is counted there, once; a
	// proposal a leader then drops is still counted.
	Proposals, ConfChanges uint64
	// ProposalBytes sums the proposals' entry data sizes; ProposalBytesMax
	// is the largest.
	ProposalBytes, ProposalBytesMax uint64
	// Raft counts the messages the brokers' raft groups sent and the
	// elections they started: the work beyond the proposals that faults
	// add (elections, snapshots, appends sent again).
	Raft RaftWork
}

// RaftWork counts what raft replicas did beyond the proposals: every
// message sent (Ready.Messages) and, among them, the appends and the
// entries they carried, the snapshots, the vote and pre-vote requests and
// the heartbeats; and the elections started (a replica turned candidate,
// bumping its term). bench/bareraft counts the same for the floor.
type RaftWork struct {
	Sent, Appends, AppendedEntries, Snapshots, Votes, Heartbeats uint64
	Elections                                                    uint64
}

// noteSent counts the messages one Ready sent.
func (w *RaftWork) noteSent(msgs []*raftpb.Message) {
	for _, m := range msgs {
		w.Sent++
		switch m.GetType() {
		case raftpb.MsgApp:
			w.Appends++
			w.AppendedEntries += uint64(len(m.GetEntries()))
		case raftpb.MsgSnap:
			w.Snapshots++
		case raftpb.MsgVote, raftpb.MsgPreVote:
			w.Votes++
		case raftpb.MsgHeartbeat:
			w.Heartbeats++
		}
	}
}

// noteRaft counts one Ready's messages and, if it turned a replica
// candidate, an election.
func (d *Density) noteRaft(rd *raft.Ready) {
	if d == nil {
		return
	}
	d.Raft.noteSent(rd.Messages)
	if rd.SoftState != nil && rd.SoftState.RaftState == raft.StateCandidate {
		d.Raft.Elections++
	}
}

// noteProposal counts one accepted proposal of size bytes.
func (d *Density) noteProposal(size int) {
	if d == nil {
		return
	}
	d.Proposals++
	d.ProposalBytes += uint64(size)
	d.ProposalBytesMax = max(d.ProposalBytesMax, uint64(size))
}

// noteTick counts one Tick of a node hosting groups raft groups.
func (d *Density) noteTick(groups int) {
	if d == nil {
		return
	}
	d.Ticks++
	d.GroupTicks += uint64(groups)
	d.RaftGroupsMax = max(d.RaftGroupsMax, groups)
}

// raftPropose proposes data in g and counts it in Config.Density when raft
// accepts it: every proposal the node makes goes through here.
func (n *Node) raftPropose(g *raftGroup, data []byte) error {
	if err := g.rn.Propose(data); err != nil {
		return err
	}
	n.cfg.Density.noteProposal(len(data))
	return nil
}

// raftProposeConfChange proposes the membership change cc in g and counts
// it, at the size of the entry raft makes of it, when raft accepts it.
func (n *Node) raftProposeConfChange(g *raftGroup, cc *raftpb.ConfChangeV2) error {
	if err := g.rn.ProposeConfChange(cc); err != nil {
		return err
	}
	if d := n.cfg.Density; d != nil {
		_, data, err := raftpb.MarshalConfChange(cc)
		if err != nil {
			panic(fmt.Sprintf("node %d: group %d: a conf change raft accepted does not marshal: %v", n.cfg.ID, g.id, err))
		}
		d.noteProposal(len(data))
		d.ConfChanges++
	}
	return nil
}
