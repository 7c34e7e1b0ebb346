package cluster

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/wire"
)

// storeRunNs is TestStoreStaysBounded's simulated length; the numbers in
// docs/performance.md come from -cluster.storerun 600s.
var storeRunNs = flag.Duration("cluster.storerun", 0, "simulated length of TestStoreStaysBounded (0: 60s)")

// storeSample is the three brokers' store sizes at one point of a
// storeLoad run.
type storeSample struct {
	atS                 int64
	storeBytes, logRows [3]int64
	raftEntries         [3]uint64
	// replayMs is broker 3's last restart (open, replay, rebuild) in wall
	// milliseconds, for docs/performance.md; never asserted.
	replayMs float64
}

// storeLoad runs a steady commit load for durNs on a stream of 2 shards
// keeping 256 records per scope (64 live keys, so retention covers every
// one), with an outbox relay's trims, restarting broker 3 every
// restartEveryNs (its store is replayed each time); it samples the stores
// every sampleEveryNs and at the end, and checks no key was lost.
func storeLoad(t *testing.T, durNs, sampleEveryNs, restartEveryNs int64) []storeSample {
	t.Helper()
	const relayTrimEvery = 128
	p, spec := NewProbe("probe")
	streams := retentionStreams(256, 0)
	streams[0].Shards = 2
	c, err := New(Config{Seed: 41, Extra: []world.NodeSpec{spec}, Streams: streams})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	var samples []storeSample
	var replayMs float64
	take := func() {
		s := storeSample{atS: c.World.NowNs() / secondNs, replayMs: replayMs}
		for i := 0; i < 3; i++ {
			if n := c.Node(RaftID(i)); n != nil {
				st := n.Stats()
				s.storeBytes[i], s.logRows[i], s.raftEntries[i] = st.StoreBytes, int64(st.LogRows), st.RaftLogEntries
			}
		}
		samples = append(samples, s)
	}
	nextSampleNs, nextRestartNs := c.World.NowNs(), c.World.NowNs()+restartEveryNs
	for i := 0; c.World.NowNs() < durNs; i++ {
		if c.World.NowNs() >= nextSampleNs {
			take()
			nextSampleNs += sampleEveryNs
		}
		if c.World.NowNs() >= nextRestartNs {
			c.World.Kill(2, false, 0)
			start := time.Now()
			c.World.Restart(2)
			c.World.RunFor(0)
			replayMs = float64(time.Since(start).Microseconds()) / 1000
			nextRestartNs += restartEveryNs
		}
		sc := acmeScope(uint32(i % 2))
		g := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
		k := fmt.Sprintf("k%d", i%64)
		a, err := p.Call(c, g, &wire.Request{Scope: sc, Body: &wire.Commit{Record: felix.Record{Event: felix.EventPublish,
			Payload: make([]byte, 200), Ops: []felix.StateOp{{Kind: felix.OpPut, Key: k, Value: []byte(fmt.Sprint(i))}}}}}, 10*secondNs)
		if err != nil {
			t.Fatal(err)
		}
		// Stand in for the outbox relay: it confirms what it delivered
		// every relayTrimEvery commits of a scope, and only a confirmed
		// trim deletes outbox rows (without it they pile up by design).
		if w, ok := a.Body.(*wire.Written); ok && i/2%relayTrimEvery == 0 {
			if _, err := p.Call(c, g, &wire.Request{Scope: sc, Body: &wire.OutboxTrim{ThroughOffset: w.Offset}}, 10*secondNs); err != nil {
				t.Fatal(err)
			}
		}
	}
	take()
	for _, s := range samples {
		t.Logf("t=%4ds store bytes %v log rows %v raft entries %v; broker 3 restart %.1f ms", s.atS, s.storeBytes, s.logRows, s.raftEntries, s.replayMs)
	}
	for _, sh := range []uint32{0, 1} {
		for id, s := range scopeShards(t, c, c.RaftGroupOf("orders", "order-events", sh), "acme") {
			if len(s.State) != 32 {
				t.Fatalf("broker %d shard %d holds %d keys, want its 32 (retention covers every live key)", id, sh, len(s.State))
			}
		}
	}
	return samples
}

// TestStoreStaysBounded: under storeLoad (broker 3 restarted at each
// tenth of the run), every broker's log table, raft log and store file
// stop growing: the second half of the run ends no bigger than twice the
// size at its start (the file is rewritten each time it doubles).
func TestStoreStaysBounded(t *testing.T) {
	durNs := int64(60 * secondNs)
	if *storeRunNs > 0 {
		durNs = storeRunNs.Nanoseconds()
	}
	samples := storeLoad(t, durNs, durNs/10, durNs/10)
	mid, last := samples[len(samples)/2], samples[len(samples)-1]
	for i := 0; i < 3; i++ {
		if last.logRows[i] > 2*256 || last.raftEntries[i] > 3*(1024+128+64) {
			t.Fatalf("broker %d ends with %d log rows and %d raft entries: not bounded by retention and compaction", i+1, last.logRows[i], last.raftEntries[i])
		}
		if last.storeBytes[i] > 2*mid.storeBytes[i]+1<<20 {
			t.Fatalf("broker %d store grew from %d to %d bytes over the second half", i+1, mid.storeBytes[i], last.storeBytes[i])
		}
	}
}

// TestRestartingBrokerCompactsItsStore: a broker restarted more often than
// its store file doubles (every 2 s) still rewrites it: its file stays
// within the bound of the brokers that never restart (twice their
// largest, plus the rewrite threshold), so its replay stays bounded too.
// Before a restart counted the whole opened file as rewritten, broker 3's
// file grew by every restart's worth of history, never rewritten.
func TestRestartingBrokerCompactsItsStore(t *testing.T) {
	samples := storeLoad(t, 60*secondNs, 5*secondNs, 2*secondNs)
	var steady int64
	for _, s := range samples {
		steady = max(steady, s.storeBytes[0], s.storeBytes[1])
	}
	for _, s := range samples {
		if s.storeBytes[2] > 2*steady+node.RewriteBytesMin {
			t.Fatalf("at %d s broker 3, restarted every 2 s, holds a %d-byte store; the others never exceeded %d", s.atS, s.storeBytes[2], steady)
		}
	}
}
