package workload

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/world"
)

const secondNs = 1_000_000_000

// runWorkload runs a default workload against 3 brokers for durNs under
// link (zero: clean network), then lets every call complete.
func runWorkload(t *testing.T, seed uint64, durNs int64, link world.LinkConfig) (*Workload, *cluster.Cluster) {
	t.Helper()
	return runWorkloadWith(t, seed, durNs, link, Config{}, false)
}

// runWorkloadWith is runWorkload with cfg's history settings (HeldOps,
// SpillDir) and, when bind is set, the cluster's delivery tally bound.
func runWorkloadWith(t *testing.T, seed uint64, durNs int64, link world.LinkConfig, cfg Config, bind bool) (*Workload, *cluster.Cluster) {
	t.Helper()
	w, err := New(Config{Brokers: 3, FirstSimID: 3, Shards: 4, StopNs: durNs, HeldOps: cfg.HeldOps, SpillDir: cfg.SpillDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	c, err := cluster.New(cluster.Config{Seed: seed, Extra: w.Specs(), Link: link})
	if err != nil {
		t.Fatal(err)
	}
	if bind {
		w.BindDeliveries(c.RequestDeliveries())
	}
	c.World.RunFor(durNs)
	if err := c.World.RunUntil(func() (bool, string) { return w.Open() == 0, "workload calls open" }, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	c.World.RunFor(secondNs) // followers apply what the last answers acknowledged
	return w, c
}

func TestConfigRefusals(t *testing.T) {
	bad := map[string]Config{
		"no brokers":          {FirstSimID: 3, Shards: 4},
		"clients on brokers":  {Brokers: 3, FirstSimID: 2, Shards: 4},
		"one tenant":          {Brokers: 3, FirstSimID: 3, Shards: 4, Tenants: []string{"acme"}},
		"tenant twice":        {Brokers: 3, FirstSimID: 3, Shards: 4, Tenants: []string{"acme", "acme"}},
		"no shards":           {Brokers: 3, FirstSimID: 3},
		"retry over 100":      {Brokers: 3, FirstSimID: 3, Shards: 4, RetryUnknownPct: 101},
		"negative gap":        {Brokers: 3, FirstSimID: 3, Shards: 4, OpGapMeanNs: -1},
		"gap of 2 ns":         {Brokers: 3, FirstSimID: 3, Shards: 4, OpGapMeanNs: 2},
		"gap under the floor": {Brokers: 3, FirstSimID: 3, Shards: 4, OpGapMeanNs: OpGapMeanNsMin - 1},
	}
	for name, cfg := range bad {
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: config accepted", name)
		}
	}
}

// TestWorkloadCleanRun: on a clean network every operation kind is
// invoked, every call completes, the tenants collide on purpose (same
// namespace, stream, shard and keys), every acknowledged write is on every
// broker at its offset, and the history round-trips through its encoding.
func TestWorkloadCleanRun(t *testing.T) {
	w, c := runWorkload(t, 3, 3*secondNs, world.LinkConfig{})
	defer c.Close()
	h := mustHistory(t, w)
	kinds := map[properties.HistoryKind]int{}
	scopes := map[string]map[string]bool{} // namespace/stream/shard -> tenants
	for _, op := range h.Ops {
		kinds[op.Kind]++
		if op.Outcome == properties.OutcomePending {
			t.Fatalf("op %d (%s) still pending after drain", op.ID, op.Kind)
		}
		k := op.Scope.Namespace + "/" + op.Scope.Stream + "/" + string(rune('0'+op.Scope.Shard))
		if scopes[k] == nil {
			scopes[k] = map[string]bool{}
		}
		scopes[k][op.Scope.Tenant] = true
	}
	for k := properties.HistoryCommit; k <= properties.HistoryGroupAck; k++ {
		if kinds[k] == 0 {
			t.Errorf("no %s invoked in %d ops", k, len(h.Ops))
		}
	}
	shared := 0
	for _, ts := range scopes {
		if len(ts) >= 2 {
			shared++
		}
	}
	if shared == 0 {
		t.Fatalf("no shard name used by two tenants: %v", scopes)
	}
	notSent := 0
	for _, op := range h.Ops {
		if op.NotSent {
			notSent++
			if op.Outcome != properties.OutcomeFailed || !strings.Contains(op.Error, "NotOnOwningShard") {
				t.Fatalf("op %d not sent: %s %q, want failed with NotOnOwningShard", op.ID, op.Outcome, op.Error)
			}
		}
	}
	if notSent == 0 {
		t.Fatal("no cross-stream commit refused before sending")
	}
	cnt := h.Counts()
	if cnt.OK < cnt.Total/2 {
		t.Fatalf("clean run: only %d of %d ops ok (%+v)", cnt.OK, cnt.Total, cnt)
	}
	snap := c.Snapshot()
	var logs []properties.ReplicaLog
	for _, r := range snap.Replicas {
		rl := properties.ReplicaLog{Node: r.Node}
		for _, g := range r.RaftGroups {
			for _, s := range g.Scopes {
				rl.Scopes = append(rl.Scopes, ReplicaViewOf("broker", s.Scope, &s.Shard))
			}
		}
		logs = append(logs, rl)
	}
	for i := range logs {
		sortScopes(logs[i].Scopes)
	}
	if err := properties.HistoryAckedOnEveryReplica(h, logs); err != nil {
		t.Fatal(err)
	}
	if err := properties.HistoryNotSentWroteNothing(h, logs); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := properties.EncodeHistory(&buf, h); err != nil {
		t.Fatal(err)
	}
	back, err := properties.ParseHistory(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, h) {
		t.Fatal("history differs after encode and parse")
	}
	t.Logf("%d ops %+v kinds %v", len(h.Ops), cnt, kinds)
}

// payloadCounts counts, over broker 1's logs, how often each payload landed.
func payloadCounts(c *cluster.Cluster) map[string]int {
	out := map[string]int{}
	snap := c.Snapshot()
	if len(snap.Replicas) == 0 {
		return out
	}
	for _, g := range snap.Replicas[0].RaftGroups {
		for _, s := range g.Scopes {
			for _, e := range s.Shard.Entries {
				out[string(e.Record.Payload)]++
			}
		}
	}
	return out
}

func sortScopes(s []properties.ReplicaView) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].Scope.Less(s[j-1].Scope); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestWorkloadRetriesRecordedHonestly: on a lossy network some writes end
// unknown, every retry is a new operation linked to an earlier unknown
// write of the same record, and a write the log holds twice (an unknown
// original and its retry both landed: commits are not idempotent) is
// always one the history shows retried. Over three seeds at least one
// such double landing must occur, so the case is really exercised.
func TestWorkloadRetriesRecordedHonestly(t *testing.T) {
	twiceTotal := 0
	for _, seed := range []uint64{5, 7, 8} {
		w, c := runWorkload(t, seed, 4*secondNs, world.LinkConfig{LatencyMinNs: 1e6, LatencyMaxNs: 2e6, LossPpm: 200_000})
		landed := payloadCounts(c)
		c.Close()
		twiceTotal += checkRetries(t, w, landed)
	}
	if twiceTotal == 0 {
		t.Fatal("no retried write landed twice in three lossy runs: the case is not exercised")
	}
}

// checkRetries checks one run's retry links and double landings and
// returns how many payloads landed twice.
func checkRetries(t *testing.T, w *Workload, landed map[string]int) int {
	t.Helper()
	h := mustHistory(t, w)
	byID := map[uint64]*properties.HistoryOp{}
	retried := map[string]bool{}
	retries, unknown := 0, 0
	for i := range h.Ops {
		op := &h.Ops[i]
		byID[op.ID] = op
		if op.Outcome == properties.OutcomeUnknown {
			unknown++
			if op.Error == "" {
				t.Fatalf("op %d unknown without a reason: %+v", op.ID, op)
			}
		}
		if op.RetryOf == 0 {
			continue
		}
		retries++
		retried[string(op.Record.Payload)] = true
		orig := byID[op.RetryOf]
		if orig == nil || orig.Outcome != properties.OutcomeUnknown || orig.Kind != op.Kind {
			t.Fatalf("op %d retries op %d, which is not an earlier unknown %s: %+v", op.ID, op.RetryOf, op.Kind, orig)
		}
		a, b := properties.ViewEntryOf(0, orig.Record), properties.ViewEntryOf(0, op.Record)
		if same, diff := properties.SameRecord(&a, &b); !same || op.InvokeNs < orig.CompleteNs {
			t.Fatalf("op %d re-sends op %d differently (%s) or before it ended", op.ID, orig.ID, diff)
		}
	}
	if unknown == 0 || retries == 0 || w.Stats().Retries != retries {
		t.Fatalf("lossy run: %d unknown, %d retries in history, %d counted", unknown, retries, w.Stats().Retries)
	}
	// This network duplicates no request, so a payload held twice can only
	// be an unknown write and its retry that both landed.
	twice := 0
	for _, op := range h.Ops {
		if op.Record == nil || op.RetryOf != 0 || landed[string(op.Record.Payload)] < 2 {
			continue
		}
		p := string(op.Record.Payload)
		twice++
		if !retried[p] {
			t.Fatalf("payload %q landed %d times without a recorded retry", p, landed[p])
		}
	}
	t.Logf("%d ops, %d unknown, %d retries, %d retried writes landed twice", len(h.Ops), unknown, retries, twice)
	return twice
}

// TestWorkloadDeterministic: the same seed gives the same history, byte
// for byte.
func TestWorkloadDeterministic(t *testing.T) {
	enc := func() string {
		w, c := runWorkload(t, 11, 2*secondNs, world.LinkConfig{LatencyMinNs: 1e6, LatencyMaxNs: 5e6, LossPpm: 50_000, DuplicatePpm: 50_000})
		c.Close()
		var buf bytes.Buffer
		if err := properties.EncodeHistory(&buf, mustHistory(t, w)); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	a := enc()
	if b := enc(); a != b {
		t.Fatalf("same seed, different histories (%d vs %d bytes)", len(a), len(b))
	}
}

// mustHistory is w's history, failing t when it cannot be read back.
func mustHistory(t *testing.T, w *Workload) *properties.History {
	t.Helper()
	h, err := w.History()
	if err != nil {
		t.Fatal(err)
	}
	return h
}
