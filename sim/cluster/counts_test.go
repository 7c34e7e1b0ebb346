package cluster

import (
	"testing"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/wire"
)

// countedCluster is newTestCluster with coverage counted.
func countedCluster(t *testing.T, seed uint64) (*Cluster, *Probe, *coverage.Counts) {
	t.Helper()
	counts := coverage.New()
	p, spec := NewProbe("probe")
	c, err := New(Config{Seed: seed, Extra: []world.NodeSpec{spec}, Counts: counts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	return c, p, counts
}

func putReq(sc felix.Scope, v string) *wire.Request {
	return &wire.Request{Scope: sc, Body: &wire.Commit{Record: felix.Record{Event: felix.EventPublish, Payload: []byte(v),
		Ops: []felix.StateOp{{Kind: felix.OpPut, Key: "k", Value: []byte(v)}}}}}
}

// TestDeposedLeaderRequestsCounted scripts the interleaving: group 2's
// leader L is cut from its peers (not from the probe) with its clock
// stalled; a request to L before the new leader acknowledged anything is
// not counted; after the new leader acknowledged a write, a read sent to
// L is counted once as a request and once as a read; requests to the new
// leader are never counted.
func TestDeposedLeaderRequestsCounted(t *testing.T) {
	c, p, counts := countedCluster(t, 5)
	sc := acmeScope(0)
	g := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
	if _, ok := call(t, c, p, putReq(sc, "v1")).(*wire.Written); !ok {
		t.Fatal("first write not written")
	}
	old, _ := c.Leader(g)
	c.World.ClockJump(SimID(old), -5*secondNs)
	c.World.CutPeers(SimID(old), 0)
	if err := c.World.RunUntil(func() (bool, string) {
		lead, ok := c.Leader(g)
		return ok && lead != old, "a new leader of group 2"
	}, 3*secondNs); err != nil {
		t.Fatal(err)
	}
	if _, leads := c.Node(old).LeaderTerm(g); !leads {
		t.Fatal("the stranded leader already stepped down: the scenario needs it to believe it leads")
	}
	read := &wire.Request{Scope: sc, Body: &wire.StateGet{Key: "k"}}
	p.Send(old, read)
	c.World.RunFor(10_000_000)
	if n := counts.Get(coverage.ClientRequestToDeposedLeader); n != 0 {
		t.Fatalf("%d requests counted before the new leader acknowledged a write", n)
	}
	if _, ok := call(t, c, p, putReq(sc, "v2")).(*wire.Written); !ok {
		t.Fatal("write through the new leader not written")
	}
	if n := counts.Get(coverage.ClientRequestToDeposedLeader); n != 0 {
		t.Fatalf("%d requests counted; only the new leader was reached", n)
	}
	p.Send(old, read)
	c.World.RunFor(10_000_000)
	if r, rd := counts.Get(coverage.ClientRequestToDeposedLeader), counts.Get(coverage.ClientReadToDeposedLeader); r != 1 || rd != 1 {
		t.Fatalf("after the new leader's write, a read to the deposed one counted %d requests and %d reads, want 1 and 1", r, rd)
	}
}

// TestCrashInsideCommitRecoveryCounted: a broker dies at the second disk
// operation of a commit (after its first frame, before the rest) with the
// unsynced bytes kept; reopening cuts whole frames without a marker and is
// counted as partial. With the bytes lost there is nothing to cut.
func TestCrashInsideCommitRecoveryCounted(t *testing.T) {
	for _, tc := range []struct {
		model   world.CrashModel
		partial uint64
	}{{world.CrashKept, 1}, {world.CrashLost, 0}} {
		t.Run(tc.model.String(), func(t *testing.T) {
			c, p, counts := countedCluster(t, 6)
			sc := acmeScope(1)
			g := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
			lead, _ := c.Leader(g)
			c.World.CrashAtDiskOp(SimID(lead), 2, tc.model, 50_000_000)
			p.Send(lead, putReq(sc, "v"))
			c.World.RunFor(10_000_000)
			if c.World.Up(SimID(lead)) {
				t.Fatal("the leader did not die at its disk operation")
			}
			c.World.RunFor(200_000_000)
			if c.Node(lead) == nil {
				t.Fatal("the leader did not reopen")
			}
			if got := counts.Get(coverage.LogstoreRecoverPartial); got != tc.partial {
				t.Fatalf("partial recoveries %d, want %d", got, tc.partial)
			}
		})
	}
}
