package node

import (
	"testing"

	"go.etcd.io/raft/v3/confchange"
	"go.etcd.io/raft/v3/raftpb"
)

// TestNextConfChange: replacing broker 3 by 10 takes three simple steps,
// written out here as the procedure states them: remove 3, add 10 as a
// learner, promote 10 once caught up (not before); demoting a voter to a
// learner is one step; a joint configuration waits for raft to leave it.
func TestNextConfChange(t *testing.T) {
	target := MembershipTarget{Voters: []uint64{1, 2, 10}}
	cases := []struct {
		cs       *raftpb.ConfState
		t        MembershipTarget
		caughtUp bool
		want     string
	}{
		{&raftpb.ConfState{Voters: []uint64{1, 2, 3}}, target, true, "ConfChangeRemoveNode(3)"},
		{&raftpb.ConfState{Voters: []uint64{1, 2}}, target, true, "ConfChangeAddLearnerNode(10)"},
		{&raftpb.ConfState{Voters: []uint64{1, 2}, Learners: []uint64{10}}, target, false, ""},
		{&raftpb.ConfState{Voters: []uint64{1, 2}, Learners: []uint64{10}}, target, true, "ConfChangeAddNode(10)"},
		{&raftpb.ConfState{Voters: []uint64{1, 2, 10}}, target, true, ""},
		{&raftpb.ConfState{Voters: []uint64{1, 2, 3}}, MembershipTarget{Voters: []uint64{1, 2}, Learners: []uint64{3}}, true, "ConfChangeAddLearnerNode(3)"},
		{&raftpb.ConfState{Voters: []uint64{1, 2}, Learners: []uint64{3}}, MembershipTarget{Voters: []uint64{1, 2, 3}}, true, "ConfChangeAddNode(3)"},
		{&raftpb.ConfState{Voters: []uint64{1, 2}, VotersOutgoing: []uint64{1, 2, 3}}, target, true, ""},
	}
	for i, c := range cases {
		cc := nextConfChange(c.cs, c.t, func(uint64) bool { return c.caughtUp })
		got := ""
		if cc != nil {
			got = confchange.Describe(cc.GetChanges()...)
			if len(cc.GetChanges()) != 1 {
				t.Fatalf("case %d: %s is not one change", i, got)
			}
		}
		if got != c.want {
			t.Fatalf("case %d: next step %q, want %q", i, got, c.want)
		}
	}
}

// TestConfFoldSkipsInvalid: folding stored conf changes matches raft's
// rules: a valid removal applies, removing the last voter is skipped (as
// apply skips it), and a normal entry is not a change.
func TestConfFoldSkipsInvalid(t *testing.T) {
	entry := func(idx uint64, typ raftpb.ConfChangeType, id uint64) *raftpb.Entry {
		cc := &raftpb.ConfChangeV2{Changes: []*raftpb.ConfChangeSingle{{Type: typ.Enum(), NodeId: new(id)}}}
		typE, data, err := raftpb.MarshalConfChange(cc)
		if err != nil {
			t.Fatal(err)
		}
		return &raftpb.Entry{Index: new(idx), Term: new(uint64(1)), Type: typE.Enum(), Data: data}
	}
	ents := []*raftpb.Entry{
		entry(5, raftpb.ConfChangeType_ConfChangeRemoveNode, 2),
		{Index: new(uint64(6)), Term: new(uint64(1)), Data: []byte{1}},
		entry(7, raftpb.ConfChangeType_ConfChangeRemoveNode, 1),
	}
	cs, last := confFold(&raftpb.ConfState{Voters: []uint64{1, 2}}, ents)
	if got := cs.GetVoters(); len(got) != 1 || got[0] != 1 || last != 5 {
		t.Fatalf("folded voters %v at %d, want [1] at 5", got, last)
	}
}
