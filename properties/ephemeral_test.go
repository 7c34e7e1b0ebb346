package properties

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// liveScope is the ephemeral shard of the hand-made histories below.
var liveScope = felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "order-live"}

// liveStreams names the ephemeral stream the checks are told of.
var liveStreams = []LiveStream{{Namespace: "orders", Stream: "order-live"}}

// liveHistory is a history an ephemeral stream's promises allow: client 0
// subscribes, client 1 publishes p1 then p2 (each delivered once), client
// 0 reads both in order, and client 1's commit to the stream is refused.
func liveHistory() *History {
	pub := func(id uint64, payload string, inv, done int64) HistoryOp {
		return HistoryOp{ID: id, Client: 1, Kind: HistoryLivePublish, Scope: liveScope, EntityKey: "order-1",
			Record: &felix.Record{Event: felix.EventPublish, Payload: []byte(payload)}, InvokeNs: inv, CompleteNs: done, Outcome: OutcomeOK,
			Requests: []HistoryRequest{{ID: id, Broker: 1, Answer: AnswerAcked, Delivered: 1}}}
	}
	return &History{Ops: []HistoryOp{
		{ID: 1, Client: 0, Kind: HistoryLiveRead, Scope: liveScope, MaxEntries: 16, InvokeNs: 10, CompleteNs: 12, Outcome: OutcomeOK},
		pub(2, "p1", 20, 25),
		pub(3, "p2", 30, 35),
		{ID: 4, Client: 0, Kind: HistoryLiveRead, Scope: liveScope, MaxEntries: 16, InvokeNs: 40, CompleteNs: 42, Outcome: OutcomeOK,
			Entries: []felix.Entry{liveEntry(0, "p1"), liveEntry(1, "p2")}},
		{ID: 5, Client: 1, Kind: HistoryCommit, Scope: liveScope, EntityKey: "order-1", InvokeNs: 50, CompleteNs: 52, Outcome: OutcomeUnknown, Error: "EphemeralStream",
			Record:   &felix.Record{Event: felix.EventPublish, Payload: []byte("c1"), Ops: []felix.StateOp{{Kind: felix.OpPut, Key: "order-1", Value: []byte("v")}}},
			Requests: []HistoryRequest{{ID: 5, Broker: 1, Answer: AnswerEphemeralStream, Delivered: 1}}},
	}}
}

func liveEntry(offset uint64, payload string) felix.Entry {
	return felix.Entry{Offset: offset, Record: felix.Record{Event: felix.EventPublish, Payload: []byte(payload)}}
}

// liveReplicas are replicas holding only a quorum stream's scope.
func liveReplicas() []ReplicaLog {
	sc := felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "order-events"}
	return []ReplicaLog{{Node: 1, Scopes: []ReplicaView{{Scope: sc, NextOffset: 1, Log: []ViewEntry{{Offset: 0, HasEvent: true, Event: "x"}}}}}}
}

// TestEphemeralChecksPassAllowedHistory: the allowed history passes both
// checks, and round-trips through the history encoding.
func TestEphemeralChecksPassAllowedHistory(t *testing.T) {
	h := liveHistory()
	if err := HistoryEphemeralRefusesCommits(h, liveReplicas(), liveStreams); err != nil {
		t.Fatal(err)
	}
	if err := HistoryLiveDelivery(h); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := EncodeHistory(&b, h); err != nil {
		t.Fatal(err)
	}
	back, err := ParseHistory(strings.NewReader(b.String()))
	if err != nil || len(back.Ops) != len(h.Ops) || back.Ops[1].Kind != HistoryLivePublish || back.Ops[1].Requests[0].Answer != AnswerAcked {
		t.Fatalf("round trip: %v, %+v", err, back)
	}
}

// TestEphemeralRefusesCommitsRejectsBrokenHistories: each way a refused
// commit can leave a trace is reported.
func TestEphemeralRefusesCommitsRejectsBrokenHistories(t *testing.T) {
	for _, c := range []struct {
		name    string
		corrupt func(h *History, rs *[]ReplicaLog)
		want    string
	}{
		{"commit ended ok", func(h *History, _ *[]ReplicaLog) { h.Ops[4].Outcome = OutcomeOK }, "op 5 (commit on ephemeral acme/orders/order-live/0) ended ok"},
		{"commit answered written", func(h *History, _ *[]ReplicaLog) { h.Ops[4].Requests[0].Answer = AnswerWritten }, "answered its request 5 written"},
		{"commit answered acked", func(h *History, _ *[]ReplicaLog) { h.Ops[4].Requests[0].Answer = AnswerAcked }, "answered its request 5 acked"},
		{"replica holds the scope", func(_ *History, rs *[]ReplicaLog) {
			(*rs)[0].Scopes = append((*rs)[0].Scopes, ReplicaView{Scope: liveScope, NextOffset: 1, Log: []ViewEntry{{Offset: 0, HasEvent: true, Event: "c1"}}})
		}, "broker 1 holds ephemeral scope"},
		{"subscriber read the commit's event", func(h *History, _ *[]ReplicaLog) {
			h.Ops[3].Entries[1] = felix.Entry{Offset: 1, Record: *h.Ops[4].Record}
		}, "the event of op 5 (commit)"},
		{"subscriber read state operations", func(h *History, _ *[]ReplicaLog) {
			h.Ops[3].Entries[1].Record.Ops = []felix.StateOp{{Kind: felix.OpDelete, Key: "k"}}
			h.Ops[3].Entries[1].Record.Payload = []byte("other")
		}, "a record with 1 state operations"},
	} {
		h, rs := liveHistory(), liveReplicas()
		c.corrupt(h, &rs)
		err := HistoryEphemeralRefusesCommits(h, rs, liveStreams)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "EphemeralRefusesCommits: ") {
			t.Errorf("%s: got %v, want EphemeralRefusesCommits naming %q", c.name, err, c.want)
		}
	}
	if err := HistoryEphemeralRefusesCommits(liveHistory(), liveReplicas(), nil); err != nil {
		t.Fatalf("no ephemeral stream named, yet: %v", err)
	}
}

// TestLiveDeliveryRejectsBrokenHistories: each broken promise of live
// delivery is reported.
func TestLiveDeliveryRejectsBrokenHistories(t *testing.T) {
	for _, c := range []struct {
		name    string
		corrupt func(h *History)
		want    string
	}{
		{"read twice", func(h *History) {
			h.Ops = append(h.Ops, HistoryOp{ID: 6, Client: 0, Kind: HistoryLiveRead, Scope: liveScope, MaxEntries: 16, InvokeNs: 60, CompleteNs: 62,
				Outcome: OutcomeOK, Entries: []felix.Entry{liveEntry(0, "p1")}})
		}, "client 0 read op 2's publish on acme/orders/order-live/0 a 2. time (in live read op 6), but only 1 copies"},
		{"another tenant's publish", func(h *History) { h.Ops[1].Scope.Tenant = "globex" }, "it reached another scope's subscriber"},
		{"another shard's publish", func(h *History) { h.Ops[2].Scope.Shard = 1 }, "read op 3's publish to acme/orders/order-live/1"},
		{"publish order", func(h *History) {
			h.Ops[3].Entries = []felix.Entry{liveEntry(0, "p2"), liveEntry(1, "p1")}
		}, "returned op 3's publish before op 2's"},
		{"offsets", func(h *History) {
			h.Ops[3].Entries = []felix.Entry{liveEntry(1, "p1"), liveEntry(0, "p2")}
		}, "returned offset 1 before offset 0"},
		{"not live yet", func(h *History) { h.Ops[0].InvokeNs, h.Ops[0].CompleteNs = 27, 28 }, "before the client's first read of the scope was sent at 27 ns"},
		{"phantom", func(h *History) { h.Ops[3].Entries[1] = liveEntry(1, "zz") }, `read "zz" at offset 1, which no live publish sent`},
		{"from the future", func(h *History) { h.Ops[2].InvokeNs, h.Ops[2].CompleteNs = 50, 55 }, "returned at 42 ns op 3's publish, invoked later, at 50 ns"},
		{"another record", func(h *History) { h.Ops[3].Entries[0].Record.Event = felix.EventEnqueue }, "with another record (event enqueue=true vs false)"},
	} {
		h := liveHistory()
		c.corrupt(h)
		err := HistoryLiveDelivery(h)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "EphemeralLiveDelivery: ") {
			t.Errorf("%s: got %v, want EphemeralLiveDelivery naming %q", c.name, err, c.want)
		}
	}
}
