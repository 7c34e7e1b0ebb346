package properties

import "testing"

// leasedFetch is an ok fetch of testGroup asking for a lease of leaseNs,
// answered with the expiry nowNs+leaseNs (nowNs: the broker's clock in
// its command), at most 4 entries, its one request delivered once.
func leasedFetch(id uint64, invokeNs, completeNs, nowNs, leaseNs int64, offsets ...uint64) HistoryOp {
	op := groupFetchOp(id, invokeNs, completeNs, offsets...)
	op.MaxEntries, op.LeaseNs, op.LeaseExpiryNs = 4, leaseNs, nowNs+leaseNs
	op.Requests = []HistoryRequest{{ID: id, Broker: 1, Answer: AnswerDeliveries, Delivered: 1}}
	return op
}

// TestGroupLeaseHonoredRedelivery: a record handed out again after its
// lease expired passes; handed out again before (by the second fetch's
// own time, expiry minus lease) fails, in either order of the answers.
func TestGroupLeaseHonoredRedelivery(t *testing.T) {
	ok := &History{Ops: []HistoryOp{
		leasedFetch(1, 0, 10, 5, 100, 0, 1),      // leased until 105
		leasedFetch(2, 200, 210, 105, 100, 0, 1), // at 105: expired ("at or past its expiry")
	}}
	if rep := HistoryGroupLeases(ok); rep.Err != nil || rep.HandoutPairs != 2 {
		t.Fatalf("redelivery at expiry: %+v", rep)
	}
	early := &History{Ops: []HistoryOp{
		leasedFetch(1, 0, 10, 5, 100, 0, 1),
		leasedFetch(2, 200, 210, 104, 100, 1), // at 104: offset 1's lease still runs
	}}
	wantInvariant(t, "redelivered a nanosecond early", HistoryGroupLeases(early).Err, InvariantGroupLeaseHonored)
	// The later answer may come first: the log order is the order by now.
	swapped := &History{Ops: []HistoryOp{
		leasedFetch(1, 0, 300, 104, 100, 1),
		leasedFetch(2, 10, 20, 5, 100, 0, 1),
	}}
	wantInvariant(t, "answers in the other order", HistoryGroupLeases(swapped).Err, InvariantGroupLeaseHonored)
}

// TestGroupLeaseHonoredExpiry: a fetch with room after a lease expired
// unacknowledged must hand the record out again; not judged when an ack
// of it was sent, when another fetch of unknown effect overlaps, or when
// a copy was duplicated.
func TestGroupLeaseHonoredExpiry(t *testing.T) {
	handed := leasedFetch(1, 0, 10, 5, 100, 0, 1)
	redelivered := &History{Ops: []HistoryOp{handed, leasedFetch(2, 200, 210, 205, 100, 0, 1)}}
	if rep := HistoryGroupLeases(redelivered); rep.Err != nil {
		t.Fatalf("redelivered as due: %v", rep.Err)
	}
	forgotten := &History{Ops: []HistoryOp{handed, leasedFetch(2, 200, 210, 205, 100, 0)}}
	rep := HistoryGroupLeases(forgotten)
	wantInvariant(t, "offset 1's lease outlived its expiry", rep.Err, InvariantGroupLeaseHonored)
	if rep.ExpiriesJudged != 1 {
		t.Fatalf("judged %d expiries, want 1", rep.ExpiriesJudged)
	}
	notYet := &History{Ops: []HistoryOp{handed, leasedFetch(2, 100, 110, 104, 100)}}
	if rep := HistoryGroupLeases(notYet); rep.Err != nil || rep.ExpiriesJudged != 0 {
		t.Fatalf("a fetch before the expiry: %+v", rep)
	}
	acked := &History{Ops: []HistoryOp{handed, groupAckOp(3, 20, 0, 1, OutcomeUnknown), leasedFetch(4, 200, 210, 205, 100, 0)}}
	if rep := HistoryGroupLeases(acked); rep.Err != nil || rep.ExpiriesJudged != 0 {
		t.Fatalf("an ack of offset 1 was sent (it may have landed): %+v", rep)
	}
	lost := groupFetchOp(3, 50, 60)
	lost.Outcome, lost.Entries = OutcomeUnknown, nil
	overlapped := &History{Ops: []HistoryOp{handed, lost, leasedFetch(4, 200, 210, 205, 100, 0)}}
	if rep := HistoryGroupLeases(overlapped); rep.Err != nil || rep.ExpiriesJudged != 0 {
		t.Fatalf("a fetch whose answer was lost may have re-leased offset 1: %+v", rep)
	}
	dup := leasedFetch(4, 200, 210, 205, 100, 0)
	dup.Requests[0].Delivered = 2
	duplicated := &History{Ops: []HistoryOp{handed, dup}}
	if rep := HistoryGroupLeases(duplicated); rep.Err != nil || rep.ExpiriesJudged != 0 {
		t.Fatalf("a duplicated fetch's other copy may have taken offset 1: %+v", rep)
	}
	noRoom := leasedFetch(2, 200, 210, 205, 100, 0, 2, 3)
	noRoom.MaxEntries = 3
	full := &History{Ops: []HistoryOp{handed, noRoom}}
	if rep := HistoryGroupLeases(full); rep.Err != nil || rep.ExpiriesJudged != 0 {
		t.Fatalf("a fetch with no room: %+v", rep)
	}
}
