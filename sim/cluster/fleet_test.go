package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/wire"
)

// The seeds: "In a cluster, an operator finalizes the atomic_commit fleet
// feature once every broker is upgraded, and commits are refused until
// then." These tests bootstrap three brokers at version 1 (which does not
// support atomic_commit; node.AtomicCommitVersionMin is 2) and upgrade them.

// newFleetCluster is a 3-broker cluster at version 1, atomic_commit not
// finalized, with a probe.
func newFleetCluster(t *testing.T, seed uint64, defects node.Defects) (*Cluster, *Probe) {
	t.Helper()
	p, spec := NewProbe("probe")
	c, err := New(Config{Seed: seed, Extra: []world.NodeSpec{spec}, BootstrapVersion: 1, NotFinalized: true, Defects: defects})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		c.Close()
		t.Fatal(err)
	}
	return c, p
}

// upgrade restarts broker raftID at version and runs until it is back and
// every running broker's metadata records the new version.
func upgrade(t *testing.T, c *Cluster, raftID uint64, version uint32) {
	t.Helper()
	c.Upgrade(raftID, version, 100_000_000)
	err := c.World.RunUntil(func() (bool, string) {
		if c.Node(raftID) == nil {
			return false, fmt.Sprintf("broker %d back up", raftID)
		}
		for _, r := range c.Snapshot().Replicas {
			if r.Metadata.VersionOf(raftID) != version {
				return false, fmt.Sprintf("broker %d's metadata records broker %d at version %d", r.Node, raftID, version)
			}
		}
		return c.AllLed()
	}, 30*secondNs)
	if err != nil {
		t.Fatal(err)
	}
}

func finalize(t *testing.T, c *Cluster, p *Probe) wire.AnswerBody {
	t.Helper()
	a, err := p.Admin(c, &node.AdminRequest{Kind: node.AdminFinalize, Feature: node.FeatureAtomicCommit}, 20*secondNs)
	if err != nil {
		t.Fatal(err)
	}
	return a.Body
}

func commitRecord(key, value string) felix.Record {
	return felix.Record{Event: felix.EventPublish, Payload: []byte("ev-" + value),
		Ops: []felix.StateOp{{Kind: felix.OpPut, Key: key, Value: []byte(value)}}}
}

// commitUntilWritten commits until one is written: after finalization a
// shard group gates commits only once its own log applied the marker.
func commitUntilWritten(t *testing.T, c *Cluster, p *Probe, sc felix.Scope, rec felix.Record) uint64 {
	t.Helper()
	for try := 0; try < 50; try++ {
		ans := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.Commit{Record: rec}})
		if w, ok := ans.(*wire.Written); ok {
			return w.Offset
		}
		if e, ok := ans.(*wire.Error); !ok || e.Code != wire.CodeFeatureNotFinalized {
			t.Fatalf("commit after finalization: %v", ans)
		}
		c.World.RunFor(secondNs / 10)
	}
	t.Fatal("no commit written after finalization")
	return 0
}

// noCommitRecords fails if any replica holds a record with state
// operations in any scope, or any state.
func noCommitRecords(s Snapshot) error {
	for _, r := range s.Replicas {
		for _, g := range r.RaftGroups {
			for _, sc := range g.Scopes {
				if len(sc.Shard.State) > 0 {
					return fmt.Errorf("broker %d scope %s holds %d state keys", r.Node, sc.Scope, len(sc.Shard.State))
				}
				for _, e := range sc.Shard.Entries {
					if len(e.Record.Ops) > 0 {
						return fmt.Errorf("broker %d scope %s holds a commit at offset %d", r.Node, sc.Scope, e.Offset)
					}
				}
			}
		}
	}
	return nil
}

// replicaLogsAgree is an independent statement of the agreement the seeds
// promise: every replica of a scope holds the same record at every offset
// both hold. It names the first disagreement.
func replicaLogsAgree(s Snapshot) error {
	type at struct {
		scope  felix.Scope
		offset uint64
	}
	seen := map[at]felix.Record{}
	from := map[at]uint64{}
	for _, r := range s.Replicas {
		for _, g := range r.RaftGroups {
			for _, sc := range g.Scopes {
				for _, e := range sc.Shard.Entries {
					k := at{sc.Scope, e.Offset}
					if prev, ok := seen[k]; ok && !recordsEqual(prev, e.Record) {
						return fmt.Errorf("scope %s offset %d: broker %d holds %d state operations, broker %d holds %d",
							sc.Scope, e.Offset, from[k], len(prev.Ops), r.Node, len(e.Record.Ops))
					}
					seen[k], from[k] = e.Record, r.Node
				}
			}
		}
	}
	return nil
}

func recordsEqual(a, b felix.Record) bool {
	if a.Event != b.Event || !bytes.Equal(a.Payload, b.Payload) || len(a.Ops) != len(b.Ops) {
		return false
	}
	for i := range a.Ops {
		if a.Ops[i].Kind != b.Ops[i].Kind || a.Ops[i].Key != b.Ops[i].Key || !bytes.Equal(a.Ops[i].Value, b.Ops[i].Value) {
			return false
		}
	}
	return true
}

// TestRollingUpgradeThenFinalize: commits are refused with the reason
// before finalization while publishes work; finalize is refused naming the
// one old broker; after a rolling upgrade under message loss, finalize is
// accepted, every replica's shard group applies the marker and commits are
// written; a broker downgraded afterwards refuses to start.
func TestRollingUpgradeThenFinalize(t *testing.T) {
	c, p := newFleetCluster(t, 7, node.Defects{})
	defer c.Close()
	sc := acmeScope(1)
	group := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)

	ans := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.Commit{Record: commitRecord("k", "v0")}})
	if e, ok := ans.(*wire.Error); !ok || e.Code != wire.CodeFeatureNotFinalized || !strings.Contains(e.Message, "atomic_commit") {
		t.Fatalf("commit before finalization: %v, want FeatureNotFinalized naming atomic_commit", ans)
	}
	cond := commitRecord("k", "v0")
	cond.Conditional = true
	if e, ok := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.CommitIf{Record: cond}}).(*wire.Error); !ok || e.Code != wire.CodeFeatureNotFinalized {
		t.Fatalf("commit_if before finalization: %v", e)
	}
	pub := felix.Record{Event: felix.EventPublish, Payload: []byte("p")}
	if _, ok := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.Publish{Record: pub}}).(*wire.Written); !ok {
		t.Fatal("publish before finalization was not written")
	}
	c.World.SetLinks(func(l *world.LinkConfig) { l.LossPpm = 50_000 })
	upgrade(t, c, 1, 2)
	upgrade(t, c, 2, 2)
	refused, ok := finalize(t, c, p).(*wire.Error)
	if !ok || refused.Code != wire.CodeAdminRefused || !strings.Contains(refused.Message, "broker 3 (version 1)") ||
		strings.Contains(refused.Message, "broker 1") || strings.Contains(refused.Message, "broker 2") {
		t.Fatalf("finalize with broker 3 old: %v, want AdminRefused naming broker 3 alone", refused)
	}
	t.Logf("refused: %s", refused.Message)
	upgrade(t, c, 3, 2)
	if a, ok := finalize(t, c, p).(*wire.Acked); !ok {
		t.Fatalf("finalize after the upgrade: %v", a)
	}
	c.World.SetLinks(func(l *world.LinkConfig) { l.LossPpm = 0 })
	if err := noCommitRecords(c.Snapshot()); err != nil {
		t.Fatalf("a commit refused before finalization left a trace: %v", err)
	}
	off := commitUntilWritten(t, c, p, sc, commitRecord("k", "v1"))
	sv, ok := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.StateGet{Key: "k"}}).(*wire.StateValue)
	if !ok || !sv.Found || sv.Version != off || string(sv.Value) != "v1" {
		t.Fatalf("state after the commit at %d: %+v", off, sv)
	}
	c.World.RunFor(secondNs)
	for _, r := range c.Snapshot().Replicas {
		if !r.RaftGroups[group-node.MetaGroup].Features.AtomicCommitFinalized {
			t.Fatalf("broker %d's group %d never applied the atomic_commit marker", r.Node, group)
		}
	}
	if err := replicaLogsAgree(c.Snapshot()); err != nil {
		t.Fatal(err)
	}

	// A restarted broker gates from its store at once: the markers its
	// groups applied are recovered, not learned again from new proposals.
	c.World.Kill(SimID(1), false, 1)
	if err := c.World.RunUntil(func() (bool, string) { return c.Node(1) != nil, "broker 1 back up" }, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	for _, g := range c.Node(1).ReplicaState().RaftGroups[1:] {
		if !g.Features.AtomicCommitFinalized {
			t.Fatalf("restarted broker 1's group %d forgot the atomic_commit marker it applied", g.ID)
		}
	}

	before := len(c.Failures())
	c.Upgrade(2, 1, 100_000_000)
	c.World.RunFor(2 * secondNs)
	if c.Node(2) != nil {
		t.Fatal("broker 2 runs at version 1 after atomic_commit was finalized")
	}
	var refusedBoot bool
	for _, f := range c.Failures()[before:] {
		refusedBoot = refusedBoot || (f.Broker == 2 && errors.Is(f.Err, node.ErrVersionTooOld))
	}
	if !refusedBoot {
		t.Fatalf("broker 2's downgraded boot did not fail with ErrVersionTooOld: %v", c.Failures()[before:])
	}
	t.Logf("downgrade refused: %v", c.Failures()[len(c.Failures())-1].Err)
}

// earlyFinalizeScenario finalizes with broker 3 still at version 1, then
// commits, and returns the replicas' disagreement (nil: none).
func earlyFinalizeScenario(t *testing.T, defects node.Defects) error {
	c, p := newFleetCluster(t, 11, defects)
	defer c.Close()
	upgrade(t, c, 1, 2)
	upgrade(t, c, 2, 2)
	if _, ok := finalize(t, c, p).(*wire.Acked); !ok {
		return nil // a correct broker refuses: nothing to disagree on
	}
	for i := 0; i < 5; i++ {
		commitUntilWritten(t, c, p, acmeScope(uint32(i%4)), commitRecord(fmt.Sprintf("k%d", i), fmt.Sprintf("v%d", i)))
	}
	c.World.RunFor(secondNs)
	return replicaLogsAgree(c.Snapshot())
}

// TestEarlyFinalizeDefectIsCaught: the agreement check passes on the
// correct broker (finalize is refused while broker 3 is old) and catches
// the planted defect, where the old broker applies commits partially.
func TestEarlyFinalizeDefectIsCaught(t *testing.T) {
	if err := earlyFinalizeScenario(t, node.Defects{}); err != nil {
		t.Fatalf("correct broker: %v", err)
	}
	err := earlyFinalizeScenario(t, node.Defects{EarlyFinalize: true})
	if err == nil {
		t.Fatal("the early-finalize defect went unnoticed")
	}
	t.Logf("planted defect caught: %v", err)
}

// TestFinalizedFeatureSurvivesCompaction: atomic_commit is finalized
// mid-run, then the shard group's raft log is compacted past its marker
// while a follower is down. A broker restarted after the compaction, and
// the follower that catches up by snapshot, both still gate commits as
// finalized: the compaction point and the snapshot carry the feature, since
// the marker itself is gone from the log. Without that, the restarted
// replica would refuse at apply the commits the others write.
func TestFinalizedFeatureSurvivesCompaction(t *testing.T) {
	p, spec := NewProbe("probe")
	c, err := New(Config{Seed: 13, Extra: []world.NodeSpec{spec}, NotFinalized: true, CompactEntriesMin: 8, CompactKeepEntries: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	sc := acmeScope(0)
	group := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
	if a, ok := finalize(t, c, p).(*wire.Acked); !ok {
		t.Fatalf("finalize with every broker at the default version: %v", a)
	}
	commitUntilWritten(t, c, p, sc, commitRecord("k", "v0"))
	lead, _ := c.Leader(group)
	down := lead%3 + 1
	c.World.Kill(SimID(down), false, 0)
	commitN(t, c, p, sc, 0, 40, nil)
	c.World.RunFor(secondNs / 2)
	lead, _ = c.Leader(group)
	if st := c.Node(lead).Stats(); st.Compactions == 0 {
		t.Fatalf("leader %d never compacted its raft log: %+v", lead, st)
	}
	other := 6 - lead - down // the third broker, up all along
	c.World.Kill(SimID(other), false, secondNs/10)
	c.World.Restart(SimID(down))
	if err := c.World.RunUntil(func() (bool, string) {
		n, o := c.Node(down), c.Node(other)
		return n != nil && o != nil && n.Stats().SnapshotsInstalled > 0, "follower installed a snapshot and the third broker is back"
	}, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	for _, b := range []uint64{down, other} {
		if !c.Node(b).ReplicaState().RaftGroups[group-node.MetaGroup].Features.AtomicCommitFinalized {
			t.Fatalf("broker %d's group %d lost the atomic_commit marker across compaction (restart or snapshot)", b, group)
		}
	}
	commitN(t, c, p, sc, 40, 50, nil)
	c.World.RunFor(secondNs)
	if err := replicaLogsAgree(c.Snapshot()); err != nil {
		t.Fatal(err)
	}
}
