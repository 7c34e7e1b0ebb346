package cluster

import (
	"fmt"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/wire"
)

// TestRetentionKeepsUndeliveredOutbox: retention by count drops records
// the relay has not confirmed, and a follower that was down catches up by
// snapshot. Every broker, the installer included and again after it
// restarts from its store, must still hold exactly the unconfirmed events
// (from the last trim to the tail), and the leader's outbox must hand them
// out in offset order: retention never drops an undelivered outbox row,
// and a snapshot carries the outbox (its start and the held events) along
// with the retained log.
func TestRetentionKeepsUndeliveredOutbox(t *testing.T) {
	p, spec := NewProbe("probe")
	c, err := New(Config{Seed: 33, Extra: []world.NodeSpec{spec}, Streams: retentionStreams(16, 0), CompactEntriesMin: 8, CompactKeepEntries: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	sc := acmeScope(0)
	group := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
	trim := func(through uint64) {
		t.Helper()
		if a, ok := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.OutboxTrim{ThroughOffset: through}}).(*wire.Acked); !ok {
			t.Fatalf("trim through %d: %v", through, a)
		}
	}
	commitN(t, c, p, sc, 0, 10, nil)
	trim(4)
	lead, _ := c.Leader(group)
	down := lead%3 + 1
	c.World.Kill(SimID(down), false, 0)
	commitN(t, c, p, sc, 10, 60, nil) // retention keeps 44..59; the outbox must keep 5..59
	trim(19)
	c.World.RunFor(secondNs / 2)
	c.World.Restart(SimID(down))
	if err := c.World.RunUntil(func() (bool, string) {
		n := c.Node(down)
		return n != nil && n.Stats().SnapshotsInstalled > 0, "follower installed a snapshot"
	}, 5*secondNs); err != nil {
		t.Fatal(err)
	}
	c.World.RunFor(secondNs / 2)
	checkOutboxes(t, c, 20, 60)
	c.World.Kill(SimID(down), false, secondNs/10)
	c.World.RunFor(secondNs)
	checkOutboxes(t, c, 20, 60)
	ans := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.OutboxRead{FromOffset: 0, MaxEntries: 100}})
	ents, ok := ans.(*wire.Entries)
	if !ok || len(ents.Entries) != 40 {
		t.Fatalf("outbox read from 0: %v, want the 40 events at 20..59", ans)
	}
	for i, e := range ents.Entries {
		if want := fmt.Sprintf("e%d", 20+i); e.Offset != uint64(20+i) || string(e.Record.Payload) != want {
			t.Fatalf("outbox entry %d: offset %d event %q, want offset %d event %q", i, e.Offset, e.Record.Payload, 20+i, want)
		}
	}
}

// checkOutboxes asserts every broker holds the outbox [start, next): its
// start and one row per offset (the cluster's only scope).
func checkOutboxes(t *testing.T, c *Cluster, start, next uint64) {
	t.Helper()
	snap := c.Snapshot()
	if len(snap.Replicas) != c.Brokers() {
		t.Fatalf("only %d of %d brokers running", len(snap.Replicas), c.Brokers())
	}
	var bad []string
	for _, r := range snap.Replicas {
		for _, g := range r.RaftGroups {
			for _, s := range g.Scopes {
				if s.OutboxStart != start || s.Shard.NextOffset != next {
					bad = append(bad, fmt.Sprintf("broker %d scope %s: outbox [%d, %d), want [%d, %d)", r.Node, s.Scope, s.OutboxStart, s.Shard.NextOffset, start, next))
				}
			}
		}
		if r.OutboxRows != int(next-start) {
			bad = append(bad, fmt.Sprintf("broker %d holds %d outbox rows, want %d", r.Node, r.OutboxRows, next-start))
		}
	}
	if len(bad) > 0 {
		t.Fatal(strings.Join(bad, "; "))
	}
}
