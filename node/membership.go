package node

import (
	"fmt"
	"slices"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/confchange"
	"go.etcd.io/raft/v3/raftpb"
	"go.etcd.io/raft/v3/tracker"
	"google.golang.org/protobuf/proto"
)

// Membership changes.
//
// A group's members change only through raft (ConfChangeV2 entries), and
// only in simple steps (one change per entry, so no joint configuration
// is ever entered). An operator names the membership it
// wants (MembershipTarget) and asks each group's leader to take the next
// step towards it (StepMembership): remove the members the target drops
// (a voter it keeps as a learner is demoted), add its new members as
// learners, then promote each learner the target makes a voter once its
// stored log holds the leader's committed prefix (caughtUp; a new member
// catches up by snapshot). A broker that lost its
// store joins under a new raft id (Config.Join), never under its old one:
// with an empty log it could vote twice in a term it already voted in.
//
// g.confState is the membership as of g.applied; a restart folds the
// conf changes stored after the compaction point into it (confFold), and
// a compaction point never passes the last applied conf change (its
// ConfState would be the wrong one).

// MembershipTarget is the membership an operator wants every group to
// reach: Voters vote, Learners receive the log without voting; every
// other member is removed.
type MembershipTarget struct {
	Voters, Learners []uint64
}

// MembershipStatus is where one group stands against a target on the node
// asked.
type MembershipStatus struct {
	// Leader is set when the node leads the group (only a leader proposes).
	Leader bool
	// Done is set when the group's applied membership is the target.
	Done bool
	// Proposed describes the change proposed now ("" when none).
	Proposed string
	// Voters and Learners are the group's applied membership.
	Voters, Learners []uint64
}

// Membership returns group's applied voters and learners (false if the
// node hosts no such group).
func (n *Node) Membership(group uint64) (voters, learners []uint64, ok bool) {
	g := n.raftGroup(group)
	if g == nil {
		return nil, nil, false
	}
	return slices.Clone(g.confState.GetVoters()), slices.Clone(g.confState.GetLearners()), true
}

// StepMembership compares group's applied membership with target and, if
// this node leads the group, proposes the next simple step towards it. It
// refuses a target without voters; a proposal raft drops (another change
// pending, leadership lost) is simply proposed again by a later call.
func (n *Node) StepMembership(group uint64, target MembershipTarget) (MembershipStatus, error) {
	g := n.raftGroup(group)
	if g == nil {
		return MembershipStatus{}, fmt.Errorf("membership step refused: node %d hosts no group %d", n.cfg.ID, group)
	}
	if len(target.Voters) == 0 {
		return MembershipStatus{}, fmt.Errorf("membership step refused: group %d target %v has no voters", group, target)
	}
	st := MembershipStatus{Leader: g.isLeader, Voters: slices.Clone(g.confState.GetVoters()), Learners: slices.Clone(g.confState.GetLearners())}
	cc := nextConfChange(g.confState, target, func(id uint64) bool { return n.caughtUp(g, id) })
	if cc == nil {
		st.Done = len(g.confState.GetVotersOutgoing()) == 0 && sameSet(st.Voters, target.Voters) && sameSet(st.Learners, target.Learners)
		return st, nil
	}
	if !g.isLeader || n.failed != nil {
		return st, nil
	}
	if _, err := foldConfChange(g.confState, cc); err != nil {
		return st, fmt.Errorf("membership step refused: group %d: %s on %v: %w", group, confchange.Describe(cc.GetChanges()...), g.confState.GetVoters(), err)
	}
	if err := n.raftProposeConfChange(g, cc); err != nil {
		return st, nil // not leader after all, or proposals dropped: retried later
	}
	st.Proposed = confchange.Describe(cc.GetChanges()...)
	n.maybeProcess()
	return st, nil
}

// nextConfChange is the next step from cs towards target, one change at
// a time (a ConfChangeV2 of one change is simple; of more, raft enters a
// joint configuration), or nil when none is due: first a voter removed or
// demoted, then a learner removed, then a new member added as a learner,
// then a caught-up learner promoted. In a joint configuration (which
// this node never proposes) nothing is due: raft leaves it by itself.
func nextConfChange(cs *raftpb.ConfState, t MembershipTarget, caughtUp func(uint64) bool) *raftpb.ConfChangeV2 {
	one := func(typ raftpb.ConfChangeType, id uint64) *raftpb.ConfChangeV2 {
		return &raftpb.ConfChangeV2{Changes: []*raftpb.ConfChangeSingle{{Type: typ.Enum(), NodeId: new(id)}}}
	}
	if len(cs.GetVotersOutgoing()) > 0 {
		return nil
	}
	for _, v := range cs.GetVoters() {
		switch {
		case slices.Contains(t.Voters, v):
		case slices.Contains(t.Learners, v):
			return one(raftpb.ConfChangeType_ConfChangeAddLearnerNode, v)
		default:
			return one(raftpb.ConfChangeType_ConfChangeRemoveNode, v)
		}
	}
	for _, l := range cs.GetLearners() {
		if !slices.Contains(t.Learners, l) && !slices.Contains(t.Voters, l) {
			return one(raftpb.ConfChangeType_ConfChangeRemoveNode, l)
		}
	}
	for _, id := range append(slices.Clone(t.Learners), t.Voters...) {
		if !slices.Contains(cs.GetVoters(), id) && !slices.Contains(cs.GetLearners(), id) {
			return one(raftpb.ConfChangeType_ConfChangeAddLearnerNode, id)
		}
	}
	for _, l := range cs.GetLearners() {
		if slices.Contains(t.Voters, l) && caughtUp(l) {
			return one(raftpb.ConfChangeType_ConfChangeAddNode, l)
		}
	}
	return nil
}

// caughtUp reports whether the leader of g knows id's stored log to hold
// its whole committed prefix: raft's match index for id (what id
// acknowledged persisting, entries the leader's log agrees with) at or
// past the leader's commit index. A learner is promoted only then, so
// the new voter never lacks an entry the group has committed: a quorum
// counting it needs no catch-up first. Under a steady load the match
// trails the commit index by a round trip at times and meets it at
// others; the operator asks again every step. Under the
// PromoteBeforeCaughtUp defect, any learner that has answered the leader
// counts as caught up.
func (n *Node) caughtUp(g *raftGroup, id uint64) bool {
	if !g.isLeader {
		return false
	}
	var match uint64
	var active bool
	g.rn.WithProgress(func(pid uint64, _ raft.ProgressType, pr tracker.Progress) {
		if pid == id {
			match, active = pr.Match, pr.RecentActive
		}
	})
	if caught, planted := n.promoteBeforeCaughtUp(match, active); planted {
		return caught
	}
	return match > 0 && match >= g.rn.BasicStatus().GetCommit()
}

func sameSet(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// applyConfChange applies a committed conf-change entry of g: raft changes
// its configuration, g.confState records it. An entry that does not decode
// or is not a valid change of the current membership is skipped (raft is
// not told), identically on every replica.
func (n *Node) applyConfChange(g *raftGroup, e *raftpb.Entry) {
	cc, err := decodeConfChange(e)
	if err == nil {
		_, err = foldConfChange(g.confState, cc)
	}
	if err != nil {
		n.logger.Errorf("group %d index %d: skipped a conf change: %v", g.id, e.GetIndex(), err)
		return
	}
	g.confState = g.rn.ApplyConfChange(cc)
	g.confIndex = e.GetIndex()
	n.stats.MembershipChanges++
	n.notePath(PathMembershipChange)
}

// decodeConfChange decodes a conf-change entry of either version.
func decodeConfChange(e *raftpb.Entry) (raftpb.ConfChangeI, error) {
	switch e.GetType() {
	case raftpb.EntryType_EntryConfChange:
		cc := &raftpb.ConfChange{}
		if err := proto.Unmarshal(e.GetData(), cc); err != nil {
			return nil, fmt.Errorf("%w: conf change at index %d: %v", ErrMalformed, e.GetIndex(), err)
		}
		return cc, nil
	case raftpb.EntryType_EntryConfChangeV2:
		cc := &raftpb.ConfChangeV2{}
		if err := proto.Unmarshal(e.GetData(), cc); err != nil {
			return nil, fmt.Errorf("%w: conf change at index %d: %v", ErrMalformed, e.GetIndex(), err)
		}
		return cc, nil
	}
	return nil, fmt.Errorf("%w: entry %d of type %s is no conf change", ErrMalformed, e.GetIndex(), e.GetType())
}

// foldConfChange is cs after cc, computed as raft computes it, or the
// error raft would panic with.
func foldConfChange(cs *raftpb.ConfState, cc raftpb.ConfChangeI) (*raftpb.ConfState, error) {
	trk := tracker.MakeProgressTracker(1, 0)
	cfg, prs, err := confchange.Restore(confchange.Changer{Tracker: trk, LastIndex: 1}, raftpb.EnsureConfState(cs))
	if err != nil {
		return nil, err
	}
	trk.Config, trk.Progress = cfg, prs
	chg := confchange.Changer{Tracker: trk, LastIndex: 1}
	v2 := cc.AsV2()
	if v2.LeaveJoint() {
		cfg, prs, err = chg.LeaveJoint()
	} else if autoLeave, ok := v2.EnterJoint(); ok {
		cfg, prs, err = chg.EnterJoint(autoLeave, v2.GetChanges()...)
	} else {
		cfg, prs, err = chg.Simple(v2.GetChanges()...)
	}
	if err != nil {
		return nil, err
	}
	trk.Config, trk.Progress = cfg, prs
	return trk.ConfState(), nil
}

// confFold folds the conf changes among ents (stored, committed, applied
// entries after cs's index) into cs, as the entries' apply did; it
// returns the membership and the index of the last change folded (0:
// none).
func confFold(cs *raftpb.ConfState, ents []*raftpb.Entry) (*raftpb.ConfState, uint64) {
	last := uint64(0)
	for _, e := range ents {
		if e.GetType() == raftpb.EntryType_EntryNormal {
			continue
		}
		cc, err := decodeConfChange(e)
		if err != nil {
			continue
		}
		next, err := foldConfChange(cs, cc)
		if err != nil {
			continue // skipped at apply too
		}
		cs, last = next, e.GetIndex()
	}
	return cs, last
}

// members are every voter and learner of cs, ascending.
func members(cs *raftpb.ConfState) []uint64 {
	out := slices.Concat(cs.GetVoters(), cs.GetLearners(), cs.GetVotersOutgoing(), cs.GetLearnersNext())
	slices.Sort(out)
	return slices.Compact(out)
}
