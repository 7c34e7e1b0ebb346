package cluster

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/wire"
)

// The seeds' stream administration: an operator deletes a stream and
// creates it again later; requests for a deleted stream are refused
// clearly, and the same name recreated is a new stream whose offsets
// never mix with the old one's. These tests drive it on a 3-broker cluster
// through a probe.

func adminCall(t *testing.T, c *Cluster, p *Probe, kind node.AdminKind) wire.AnswerBody {
	t.Helper()
	a, err := p.Admin(c, &node.AdminRequest{Kind: kind, Namespace: "orders", Stream: "order-events"}, 20*secondNs)
	if err != nil {
		t.Fatal(err)
	}
	return a.Body
}

// waitIncarnation runs until every broker's every shard group of
// orders/order-events has applied inc.
func waitIncarnation(t *testing.T, c *Cluster, inc node.StreamIncarnation) {
	t.Helper()
	err := c.World.RunUntil(func() (bool, string) {
		for _, r := range c.Snapshot().Replicas {
			for _, g := range r.RaftGroups[1:] {
				if g.Incarnation != inc {
					return false, fmt.Sprintf("broker %d group %d at %s, want %s", r.Node, g.ID, g.Incarnation, inc)
				}
			}
		}
		return len(c.Snapshot().Replicas) == c.Brokers(), "every broker up"
	}, 20*secondNs)
	if err != nil {
		t.Fatal(err)
	}
}

// leakAfterRecreate is the independent statement of "no reader sees the
// deleted incarnation in the new one": a state read of key after the
// stream was recreated must not return a value (or a version) that a
// write acknowledged before the delete put there. old maps those values
// to their versions.
func leakAfterRecreate(ans wire.AnswerBody, old map[string]uint64) error {
	sv, ok := ans.(*wire.StateValue)
	if !ok || !sv.Found {
		return nil
	}
	if v, ok := old[string(sv.Value)]; ok {
		return fmt.Errorf("state_get after recreate returned %q at version %d, written by the deleted generation at version %d", sv.Value, sv.Version, v)
	}
	return nil
}

// deleteRecreateScenario commits twice, deletes the stream, checks the
// refusals, recreates it and returns what a state read and a subscriber
// read of the new generation saw that the old generation wrote.
func deleteRecreateScenario(t *testing.T, defects node.Defects) error {
	p, spec := NewProbe("probe")
	c, err := New(Config{Seed: 23, Extra: []world.NodeSpec{spec}, Defects: defects})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	sc := acmeScope(0)
	old := map[string]uint64{}
	var tail uint64
	for _, v := range []string{"v1", "v2"} {
		off := commitUntilWritten(t, c, p, sc, commitRecord("k", v))
		old[v], tail = off, off+1
	}
	if a, ok := adminCall(t, c, p, node.AdminStreamDelete).(*wire.Acked); !ok {
		t.Fatalf("delete of a live stream: %v", a)
	}
	waitIncarnation(t, c, node.StreamIncarnation{Generation: 1, Deleted: true})
	for _, req := range []*wire.Request{{Scope: sc, Body: &wire.Commit{Record: commitRecord("k", "v-deleted")}}, {Scope: sc, Body: &wire.StateGet{Key: "k"}}} {
		e, ok := call(t, c, p, req).(*wire.Error)
		if !ok || e.Code != wire.CodeUnknownStream || !strings.Contains(e.Message, "was deleted (generation 1, deleted)") {
			t.Fatalf("%s on a deleted stream answered %v, want UnknownStream naming the deletion", kindOf(req), e)
		}
	}
	if e, ok := adminCall(t, c, p, node.AdminStreamDelete).(*wire.Error); !ok || e.Code != wire.CodeAdminRefused || !strings.Contains(e.Message, "already deleted") {
		t.Fatalf("second delete answered %v, want AdminRefused: already deleted", e)
	}
	if a, ok := adminCall(t, c, p, node.AdminStreamCreate).(*wire.Acked); !ok {
		t.Fatalf("create of a deleted stream: %v", a)
	}
	waitIncarnation(t, c, node.StreamIncarnation{Generation: 2})
	if e, ok := adminCall(t, c, p, node.AdminStreamCreate).(*wire.Error); !ok || e.Code != wire.CodeAdminRefused || !strings.Contains(e.Message, "it exists (generation 2)") {
		t.Fatalf("create of a live stream answered %v, want AdminRefused: it exists", e)
	}
	if err := leakAfterRecreate(call(t, c, p, &wire.Request{Scope: sc, Body: &wire.StateGet{Key: "k"}}), old); err != nil {
		return err
	}
	if ents, ok := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.SubscribeRead{FromOffset: 0, MaxEntries: 16}}).(*wire.Entries); ok && len(ents.Entries) > 0 {
		return fmt.Errorf("subscriber read from 0 after recreate returned %d records of the deleted generation, from offset %d", len(ents.Entries), ents.Entries[0].Offset)
	}
	if off := commitUntilWritten(t, c, p, sc, commitRecord("k", "v3")); off < tail {
		t.Fatalf("the new generation's first commit landed at offset %d, below the old generation's tail %d: offsets mix", off, tail)
	}
	return nil
}

func kindOf(req *wire.Request) string { return req.Body.Kind().String() }

func TestStreamDeleteRecreate(t *testing.T) {
	if err := deleteRecreateScenario(t, node.Defects{}); err != nil {
		t.Fatal(err)
	}
}

func TestRecreateKeepsStateDefectIsCaught(t *testing.T) {
	err := deleteRecreateScenario(t, node.Defects{RecreateKeepsState: true})
	if err == nil {
		t.Fatal("recreate-keeps-state: the new generation read nothing of the old one")
	}
	t.Logf("caught: %v", err)
}

// TestIncarnationSurvivesRestartAndCompaction deletes and recreates a
// stream on a cluster that compacts its raft logs, restarts every broker
// and installs a snapshot on a lagging one: every replica keeps the new
// generation and none holds the old generation's records.
func TestIncarnationSurvivesRestartAndCompaction(t *testing.T) {
	p, spec := NewProbe("probe")
	c, err := New(Config{Seed: 29, Extra: []world.NodeSpec{spec}, CompactEntriesMin: 8, CompactKeepEntries: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	sc := acmeScope(0)
	group := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
	commitN(t, c, p, sc, 0, 10, nil)
	lead, _ := c.Leader(group)
	down := lead%3 + 1
	c.World.Kill(SimID(down), false, 0)
	adminCall(t, c, p, node.AdminStreamDelete)
	adminCall(t, c, p, node.AdminStreamCreate)
	err = c.World.RunUntil(func() (bool, string) {
		l, ok := c.Leader(group)
		if !ok {
			return false, "a leader"
		}
		inc := c.Node(l).ReplicaState().RaftGroups[group-node.MetaGroup].Incarnation
		return inc == node.StreamIncarnation{Generation: 2}, "the leader at generation 2"
	}, 20*secondNs)
	if err != nil {
		t.Fatal(err)
	}
	commitN(t, c, p, sc, 10, 60, nil)
	c.World.Restart(SimID(down))
	waitIncarnation(t, c, node.StreamIncarnation{Generation: 2})
	if n := c.Node(down); n.Stats().SnapshotsInstalled == 0 {
		t.Fatalf("broker %d caught up from the log, not a snapshot: the test misses its path", down)
	}
	for i := 0; i < c.Brokers(); i++ {
		c.World.Kill(i, false, secondNs/10)
	}
	c.World.RunFor(secondNs / 2)
	waitIncarnation(t, c, node.StreamIncarnation{Generation: 2})
	for _, r := range c.Snapshot().Replicas {
		for _, s := range r.RaftGroups[group-node.MetaGroup].Scopes {
			for _, e := range s.Shard.Entries {
				if i, err := strconv.Atoi(strings.TrimPrefix(string(e.Record.Payload), "e")); err == nil && i < 10 {
					t.Fatalf("broker %d scope %s holds %q of the deleted generation at offset %d", r.Node, s.Scope, e.Record.Payload, e.Offset)
				}
			}
		}
	}
	if err := replicaLogsAgree(c.Snapshot()); err != nil {
		t.Fatal(err)
	}
}
