package runner

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/properties"
)

// settledRun builds and runs a short run through quiesce and returns it
// open (the caller closes r.c) so a test can take and tamper with its
// snapshot.
func settledRun(t *testing.T, seed uint64) *run {
	t.Helper()
	r := &run{opts: Options{Seed: seed, DurationNs: 3e9, Faults: NoFaults()}.withDefaults()}
	if err := r.build(); err != nil {
		t.Fatal(err)
	}
	r.res = &Result{Options: r.opts, Seed: seed, Plan: r.plan}
	r.c.World.RunFor(r.opts.DurationNs)
	r.c.World.Heal()
	r.liveness()
	r.quiesce()
	if len(r.res.Violations) != 0 {
		r.c.Close()
		t.Fatalf("settling: %v", r.res.Violations)
	}
	return r
}

// busiestScope returns the index of a workload scope with at least one
// record carrying state operations on every replica.
func busiestScope(t *testing.T, scopes []properties.ClusterScope) int {
	best, bestLen := -1, 0
	for i := range scopes {
		if scopes[i].Scope.Tenant != "liveness" && len(scopes[i].Replicas) == 3 && len(scopes[i].Replicas[0].Log) > bestLen {
			best, bestLen = i, len(scopes[i].Replicas[0].Log)
		}
	}
	if best < 0 {
		t.Fatal("no workload scope on all three brokers")
	}
	return best
}

func hasViolation(vs []Violation, invariant properties.InvariantName) bool {
	for _, v := range vs {
		if v.Invariant == invariant {
			return true
		}
	}
	return false
}

// TestReplicaChecksOnTamperedSnapshot: a real snapshot after a clean run
// passes every replica and history check; the same snapshot with one
// replica's record missing a state operation, a state view missing a key,
// a version off by one, or an
// acknowledged record missing from one replica is reported.
func TestReplicaChecksOnTamperedSnapshot(t *testing.T) {
	r := settledRun(t, 9)
	defer r.c.Close()
	snap := r.c.Snapshot()
	h, err := r.wl.History()
	if err != nil {
		t.Fatal(err)
	}
	if vs := ReplicaViolations(ClusterScopesOf(snap), h); len(vs) != 0 {
		t.Fatalf("clean snapshot: %v", vs)
	}

	scopes := ClusterScopesOf(snap)
	i := busiestScope(t, scopes)
	rep := &scopes[i].Replicas[1]
	for k := range rep.Log {
		if len(rep.Log[k].Ops) > 0 {
			rep.Log[k].Ops = rep.Log[k].Ops[1:] // one replica lost a put
			break
		}
	}
	if vs := ReplicaViolations(scopes, h); !hasViolation(vs, properties.InvariantCommittedPrefixAgreement) {
		t.Fatalf("record missing a state op on one replica: %v", vs)
	}

	scopes = ClusterScopesOf(snap)
	i = busiestScope(t, scopes)
	scopes[i].Replicas[0].State = scopes[i].Replicas[0].State[1:] // a key lost from one state view
	if vs := ReplicaViolations(scopes, h); !hasViolation(vs, properties.InvariantStateMatchesLog) {
		t.Fatalf("state view missing a key: %v", vs)
	}

	scopes = ClusterScopesOf(snap)
	i = busiestScope(t, scopes)
	scopes[i].Replicas[2].State[0].Version++
	if vs := ReplicaViolations(scopes, h); !hasViolation(vs, properties.InvariantVersionIsOffset) {
		t.Fatalf("version off by one: %v", vs)
	}

	logs := ReplicaLogsOf(snap)
	sc := scopes[i].Scope
	for ri := range logs {
		if l := logs[ri].Scope(sc); l != nil && ri == 0 && len(l.Log) > 0 {
			l.Log = l.Log[:len(l.Log)-1]
			l.NextOffset--
		}
	}
	err = properties.HistoryAckedOnEveryReplica(h, logs)
	if err == nil || !strings.Contains(err.Error(), "log ends before it") {
		t.Fatalf("acknowledged record missing on one replica: %v", err)
	}
}
