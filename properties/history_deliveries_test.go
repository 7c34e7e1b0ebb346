package properties

import (
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// deliveredOnce is fixtureHistory with each write's one request delivered
// once (request ids are the op ids).
func deliveredOnce() *History {
	h := fixtureHistory()
	for i := range h.Ops {
		h.Ops[i].Requests = []HistoryRequest{{ID: h.Ops[i].ID, Delivered: 1}}
	}
	return h
}

// windowOf is a replica's view of testScope holding es, whose offsets
// ascend without gaps; the window starts at the first.
func windowOf(es ...felix.Entry) ReplicaView {
	l := ReplicaView{Scope: testScope}
	for i := range es {
		l.Log = append(l.Log, ViewEntryOf(es[i].Offset, &es[i].Record))
	}
	if len(es) > 0 {
		l.FirstOffset, l.NextOffset = es[0].Offset, es[len(es)-1].Offset+1
	}
	return l
}

// landedTwice is fixtureLog with e2's record written again at offset 4 (a
// second landing of the write acked at 2), on n replicas.
func landedTwice(n int) []ReplicaLog {
	es := append(fixtureEntries(), felix.Entry{Offset: 4, Record: fixtureEntries()[2].Record})
	var out []ReplicaLog
	for i := 1; i <= n; i++ {
		out = append(out, ReplicaLog{Node: uint64(i), Scopes: []ReplicaView{windowOf(es...)}})
	}
	return out
}

func TestHistoryLandsAtMostOncePerDelivery(t *testing.T) {
	rs := replicas(3)
	ref := LongestLogs(rs)
	mustHold(t, "each write landed once per delivery", HistoryLandsAtMostOncePerDelivery(deliveredOnce(), rs, &ref))

	// A broker that proposed one delivered copy twice (a leader
	// re-proposing a pending write): two offsets, one delivery.
	twice := landedTwice(3)
	ref = LongestLogs(twice)
	mustFail(t, "one delivery landed twice", HistoryLandsAtMostOncePerDelivery(deliveredOnce(), twice, &ref),
		`record "e2" landed 2 times (acme/orders/order-events/1 offset 2, acme/orders/order-events/1 offset 4) but its requests were delivered 1 times: op 3 (commit by client 0, ok) requests 3×1`)

	// The network duplicated the request: two copies, two landings.
	dup := deliveredOnce()
	dup.Ops[2].Requests[0].Delivered = 2
	mustHold(t, "a duplicated delivery landed twice", HistoryLandsAtMostOncePerDelivery(dup, twice, &ref))

	// A NotLeader redirect re-sent it under a new id, and the first copy
	// had been proposed before the broker stepped down.
	redirected := deliveredOnce()
	redirected.Ops[2].Requests = []HistoryRequest{{ID: 3, Delivered: 1}, {ID: 7, Delivered: 1}}
	mustHold(t, "a redirected write's two copies landed", HistoryLandsAtMostOncePerDelivery(redirected, twice, &ref))

	// A retry shares its original's record: their deliveries are summed.
	e2 := fixtureEntries()[2].Record
	retried := addOp(deliveredOnce(), HistoryOp{Kind: HistoryCommit, Record: &e2, RetryOf: 3, InvokeNs: 50, CompleteNs: 60,
		Outcome: OutcomeUnknown, Requests: []HistoryRequest{{ID: 9, Delivered: 1}}})
	mustHold(t, "a retry's copy landed beside its original's", HistoryLandsAtMostOncePerDelivery(retried, twice, &ref))

	// A write no copy of which reached a broker cannot be in a log.
	never := deliveredOnce()
	never.Ops[3].Requests[0].Delivered = 0
	mustFail(t, "landed without a delivery", HistoryLandsAtMostOncePerDelivery(never, rs, &ref), `record "e3" landed 1 times`)

	// Requests not recorded: the record is not judged.
	unrecorded := deliveredOnce()
	unrecorded.Ops[2].Requests = nil
	mustHold(t, "unrecorded requests are not judged", HistoryLandsAtMostOncePerDelivery(unrecorded, twice, &ref))

	// A failed write's copies were refused; it must not land at all, which
	// FailedWriteLeftNoTrace judges. Here its copy is the only delivery of
	// a record in the log twice, so the excess is still this check's.
	failed := deliveredOnce()
	failed.Ops[2].Outcome, failed.Ops[2].Error = OutcomeFailed, "InvalidRequest"
	mustFail(t, "a failed write's record twice", HistoryLandsAtMostOncePerDelivery(failed, twice, &ref), `record "e2" landed 2 times`)
}

// TestLandsAtMostOnceUnderRetention: retention drops copies from the logs,
// which only lowers the count; a read that saw a dropped copy still
// counts it, so an excess is never excused.
func TestLandsAtMostOnceUnderRetention(t *testing.T) {
	es := fixtureEntries()
	e2 := es[2].Record
	again := felix.Entry{Offset: 4, Record: e2}
	// Every replica dropped offsets 0..2; offset 4 holds e2's second copy.
	trimmed := []ReplicaLog{{Node: 1, Scopes: []ReplicaView{windowOf(es[3], again)}}, {Node: 2, Scopes: []ReplicaView{windowOf(es[3], again)}}}
	ref := LongestLogs(trimmed)
	ref.Scopes[0].Drops = []RetentionDrop{{AtNext: 5, Below: 3, WithWrite: true}}
	read := func(h *History) *History {
		return addOp(h, HistoryOp{Kind: HistorySubscribe, FromOffset: 0, MaxEntries: 8, Entries: es[:3], InvokeNs: 40, CompleteNs: 45})
	}

	dup := deliveredOnce()
	dup.Ops[2].Requests[0].Delivered = 2
	mustHold(t, "duplicated copies, one dropped by retention", HistoryLandsAtMostOncePerDelivery(read(dup), trimmed, &ref))
	mustHold(t, "one copy dropped, the other unseen", HistoryLandsAtMostOncePerDelivery(deliveredOnce(), []ReplicaLog{{Node: 1, Scopes: []ReplicaView{windowOf(es[3])}}}, nil))
	mustFail(t, "a copy a read saw before retention dropped it still counts",
		HistoryLandsAtMostOncePerDelivery(read(deliveredOnce()), trimmed, &ref), `record "e2" landed 2 times (acme/orders/order-events/1 offset 2, acme/orders/order-events/1 offset 4)`)

	// A lagging replica still holds the copy the others dropped.
	lagging := append([]ReplicaLog{{Node: 3, Scopes: []ReplicaView{windowOf(es...)}}}, trimmed...)
	mustFail(t, "a copy only a lagging replica holds still counts",
		HistoryLandsAtMostOncePerDelivery(deliveredOnce(), lagging, &ref), `record "e2" landed 2 times`)
}
