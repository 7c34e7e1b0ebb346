package node

import (
	"testing"
	"testing/cryptotest"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/vfs"
	"github.com/felixsim/felixsim/wire"
)

// lastEntry is the newest entry of group's raft log in n's store: the
// oracle for what a proposal put into raft, read from raft's own storage.
func lastEntry(t *testing.T, n *Node, group uint64) *raftpb.Entry {
	t.Helper()
	rs := n.store.RaftStorage(group)
	last, err := rs.LastIndex()
	if err != nil {
		t.Fatal(err)
	}
	ents, err := rs.Entries(last, last+1, ^uint64(0))
	if err != nil || len(ents) != 1 {
		t.Fatalf("group %d entry %d: %v (%d entries)", group, last, err, len(ents))
	}
	return ents[0]
}

// TestDensityCountsTicksAndProposals: a node given a Density counts every
// Tick with its groups, each proposal raft accepted with the size of the
// entry raft stored, a membership change as one, and nothing for a
// request refused before it reached raft.
func TestDensityCountsTicksAndProposals(t *testing.T) {
	cryptotest.SetGlobalRandom(t, 1)
	d := &Density{}
	cfg := testConfig(vfs.NewMem())
	cfg.Density = d
	h := &fakeHost{}
	n, err := Open(cfg, h, 1)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		h.nowNs += cfg.TickNs
		n.Tick()
	}
	groups := n.RaftGroups()
	if groups != 3 || d.Ticks != 100 || d.GroupTicks != 300 || d.RaftGroupsMax != 3 {
		t.Fatalf("after 100 ticks of %d groups: %+v", groups, *d)
	}
	before := *d
	rec := pub("e0")
	rec.Ops = []felix.StateOp{{Kind: felix.OpPut, Key: "k", Value: []byte("v")}}
	if w, ok := ask(t, n, h, &wire.Request{ID: 1, Scope: scope(1), Body: &wire.Commit{Record: rec}}).(*wire.Written); !ok {
		t.Fatalf("commit answered %v", w)
	}
	size := uint64(len(lastEntry(t, n, 3).GetData()))
	if d.Proposals != before.Proposals+1 || d.ProposalBytes != before.ProposalBytes+size || d.ConfChanges != 0 || d.ProposalBytesMax < size {
		t.Fatalf("one commit of a %d-byte entry: %+v, before %+v", size, *d, before)
	}
	before = *d
	bad := &wire.Request{ID: 2, Scope: felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "nope"}, Body: &wire.Commit{Record: rec}}
	if _, ok := ask(t, n, h, bad).(*wire.Error); !ok || *d != before {
		t.Fatalf("a request for no stream changed the counts to %+v from %+v", *d, before)
	}
	st, err := n.StepMembership(2, MembershipTarget{Voters: []uint64{1}, Learners: []uint64{2}})
	if err != nil || st.Proposed == "" {
		t.Fatalf("membership step: %+v, %v", st, err)
	}
	e := lastEntry(t, n, 2)
	if e.GetType() != raftpb.EntryConfChangeV2 || d.ConfChanges != 1 || d.Proposals != before.Proposals+1 ||
		d.ProposalBytes != before.ProposalBytes+uint64(len(e.GetData())) {
		t.Fatalf("one conf change (entry %v, %d bytes): %+v, before %+v", e.GetType(), len(e.GetData()), *d, before)
	}
}
