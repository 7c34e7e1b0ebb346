package runner

import (
	"testing"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
)

// TestFailoverThenSecondPromotionMidWorkload: with the full workload
// running, the leader of shard 0's group is killed at 3 s (restarted 2 s
// later), and the broker promoted in its place is killed at 6 s — a
// failover and a second promotion, each taking down whatever else that
// broker led. After heal every check holds: every
// acknowledged write is on every broker at its offset with its event and
// state, replicas agree, and every read was linearizable.
func TestFailoverThenSecondPromotionMidWorkload(t *testing.T) {
	res, killed := failoverRun(t, node.Defects{})
	if killed[0] == 0 || killed[1] == 0 || killed[0] == killed[1] {
		t.Fatalf("want two different leaders killed, got %v", killed)
	}
	if !res.OK() {
		t.Fatalf("after failover and second promotion (killed %v):\n%s", killed, res.Summary())
	}
	acked := 0
	for _, op := range res.History.Ops {
		if op.Kind.IsWrite() && op.Outcome == properties.OutcomeOK && op.CompleteNs > 6e9 {
			acked++
		}
	}
	if acked == 0 {
		t.Fatal("no write acknowledged after the second promotion")
	}
	t.Logf("killed broker %d then broker %d; %d writes acknowledged after the second promotion; %d ops", killed[0], killed[1], acked, res.Ops.Total)

	// The same scenario with writes acknowledged before the quorum has
	// them: the failover loses acknowledged writes, and the checks say so.
	bad, _ := failoverRun(t, node.Defects{AckBeforeQuorum: true})
	if !hasViolation(bad.Violations, properties.InvariantCommittedNeverLost) {
		t.Fatalf("ack-before-quorum through failovers not reported as CommittedNeverLost:\n%s", bad.Summary())
	}
}

// failoverRun runs the scenario above with the given broker defects and
// returns the result and the two killed brokers.
func failoverRun(t *testing.T, d node.Defects) (*Result, []uint64) {
	t.Helper()
	r := &run{opts: Options{Seed: 21, DurationNs: 10e9, Faults: NoFaults(), KeepHistory: true, Defects: d}.withDefaults()}
	if err := r.build(); err != nil {
		t.Fatal(err)
	}
	defer r.c.Close()
	r.res = &Result{Options: r.opts, Seed: r.opts.Seed, Plan: r.plan}
	w := r.c.World
	g := r.c.RaftGroupOf(Namespace, StreamPrefix, 0)
	var killed []uint64
	for _, atNs := range []int64{3e9, 6e9} {
		w.RunFor(atNs - w.NowNs())
		killed = append(killed, r.c.Failover(g, 2e9))
	}
	w.RunFor(r.opts.DurationNs - w.NowNs())
	w.Heal()
	r.liveness()
	r.quiesce()
	r.check()
	r.finish()
	return r.res, killed
}
