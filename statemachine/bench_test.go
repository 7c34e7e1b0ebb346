package statemachine

import (
	"strconv"
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// BenchmarkApplyCommit measures one commit apply (one event + 4 puts) in
// steady state: the retained log is full, so every apply also drops the
// oldest record, and the puts overwrite keys that already exist.
func BenchmarkApplyCommit(b *testing.B) {
	const keysLen, recsLen = 1024, 256
	cfg := Config{
		Scope:              felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "order-events"},
		Kind:               StreamQuorum,
		RetainedLenMax:     4096,
		ReplayWindowLenMax: 1024,
		GroupsMax:          1,
		LeasesPerGroupMax:  1,
	}
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	keys := make([]string, keysLen)
	for i := range keys {
		keys[i] = "order-" + strconv.Itoa(i)
	}
	recs := make([]felix.Record, recsLen)
	for i := range recs {
		recs[i] = felix.Record{Event: felix.EventEnqueue, Payload: []byte(`{"type":"placed","id":42}`)}
		for j := 0; j < 4; j++ {
			recs[i].Ops = append(recs[i].Ops, felix.StateOp{Kind: felix.OpPut, Key: keys[(i*4+j)%keysLen], Value: []byte(`{"status":"placed"}`)})
		}
	}
	feat := Features{AtomicCommitFinalized: true}
	for i := 0; i < cfg.RetainedLenMax; i++ { // warm up to steady state
		if _, err := s.Apply(&recs[i%recsLen], feat); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Apply(&recs[i%recsLen], feat); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "applies/s")
}

// BenchmarkGroupFetchAck measures one consumer-group round trip: a fetch
// of 8 records followed by their 8 acks, over a log kept full.
func BenchmarkGroupFetchAck(b *testing.B) {
	cfg := Config{
		Scope:              felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "order-events"},
		Kind:               StreamQuorum,
		RetainedLenMax:     4096,
		ReplayWindowLenMax: 1024,
		GroupsMax:          1,
		LeasesPerGroupMax:  64,
	}
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	rec := felix.Record{Event: felix.EventEnqueue, Payload: []byte(`{"type":"placed","id":42}`)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := 0; j < 8; j++ {
			if _, err := s.Apply(&rec, Features{}); err != nil {
				b.Fatal(err)
			}
		}
		d, err := s.Fetch(GroupFetch{Group: "fulfilment", NowNs: int64(i), LeaseNs: 1000, EntriesMax: 8})
		if err != nil || len(d) != 8 {
			b.Fatalf("fetch: %d deliveries, %v", len(d), err)
		}
		for _, x := range d {
			if err := s.Ack(GroupAck{Group: "fulfilment", Offset: x.Entry.Offset}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
