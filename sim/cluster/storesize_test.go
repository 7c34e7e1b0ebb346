package cluster

import (
	"flag"
	"fmt"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/sim"
	"github.com/felixsim/felixsim/wire"
)

// storeRunNs is TestStoreStaysBounded's simulated length; the numbers in
// docs/performance.md come from -cluster.storerun 600s.
var storeRunNs = flag.Duration("cluster.storerun", 0, "simulated length of TestStoreStaysBounded (0: 60s)")

// TestStoreStaysBounded: under a steady commit load on a stream whose
// retention (256 records per scope) covers its 64 live keys, every
// broker's log table, raft log and store file stop growing: the second
// half of the run ends no bigger than twice the size at its start (the
// file is rewritten each time it doubles), and no key is lost.
func TestStoreStaysBounded(t *testing.T) {
	durNs := int64(60 * secondNs)
	if *storeRunNs > 0 {
		durNs = storeRunNs.Nanoseconds()
	}
	p, spec := NewProbe("probe")
	streams := retentionStreams(256, 0)
	streams[0].Shards = 2
	c, err := New(Config{Seed: 41, Extra: []sim.NodeSpec{spec}, Streams: streams})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	type sample struct {
		atS                 int64
		storeBytes, logRows [3]int64
		raftEntries         [3]uint64
	}
	var samples []sample
	take := func() {
		s := sample{atS: c.World.NowNs() / secondNs}
		for i := 0; i < 3; i++ {
			if n := c.Node(RaftID(i)); n != nil {
				st := n.Stats()
				s.storeBytes[i], s.logRows[i], s.raftEntries[i] = st.StoreBytes, int64(st.LogRows), st.RaftLogEntries
			}
		}
		samples = append(samples, s)
	}
	nextSampleNs := c.World.NowNs()
	for i := 0; c.World.NowNs() < durNs; i++ {
		if c.World.NowNs() >= nextSampleNs {
			take()
			nextSampleNs += durNs / 10
		}
		sc := acmeScope(uint32(i % 2))
		g := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
		k := fmt.Sprintf("k%d", i%64)
		if _, err := p.Call(c, g, &wire.Request{Scope: sc, Body: &wire.Commit{Record: felix.Record{Event: felix.EventPublish,
			Payload: make([]byte, 200), Ops: []felix.StateOp{{Kind: felix.OpPut, Key: k, Value: []byte(fmt.Sprint(i))}}}}}, 10*secondNs); err != nil {
			t.Fatal(err)
		}
	}
	take()
	for _, s := range samples {
		t.Logf("t=%4ds store bytes %v log rows %v raft entries %v", s.atS, s.storeBytes, s.logRows, s.raftEntries)
	}
	mid, last := samples[len(samples)/2], samples[len(samples)-1]
	for i := 0; i < 3; i++ {
		if last.logRows[i] > 2*256 || last.raftEntries[i] > 3*(1024+128+64) {
			t.Fatalf("broker %d ends with %d log rows and %d raft entries: not bounded by retention and compaction", i+1, last.logRows[i], last.raftEntries[i])
		}
		if last.storeBytes[i] > 2*mid.storeBytes[i]+1<<20 {
			t.Fatalf("broker %d store grew from %d to %d bytes over the second half", i+1, mid.storeBytes[i], last.storeBytes[i])
		}
	}
	for _, sh := range []uint32{0, 1} {
		for id, s := range scopeShards(t, c, c.RaftGroupOf("orders", "order-events", sh), "acme") {
			if len(s.State) != 32 {
				t.Fatalf("broker %d shard %d holds %d keys, want its 32 (retention covers every live key)", id, sh, len(s.State))
			}
		}
	}
}
