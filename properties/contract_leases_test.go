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
	if rep := HistoryGroupLeases(ok, nil); rep.Err != nil || rep.HandoutPairs != 2 {
		t.Fatalf("redelivery at expiry: %+v", rep)
	}
	early := &History{Ops: []HistoryOp{
		leasedFetch(1, 0, 10, 5, 100, 0, 1),
		leasedFetch(2, 200, 210, 104, 100, 1), // at 104: offset 1's lease still runs
	}}
	wantInvariant(t, "redelivered a nanosecond early", HistoryGroupLeases(early, nil).Err, InvariantGroupLeaseHonored)
	// The later answer may come first: the log order is the order by now.
	swapped := &History{Ops: []HistoryOp{
		leasedFetch(1, 0, 300, 104, 100, 1),
		leasedFetch(2, 10, 20, 5, 100, 0, 1),
	}}
	wantInvariant(t, "answers in the other order", HistoryGroupLeases(swapped, nil).Err, InvariantGroupLeaseHonored)
}

// appliedLedger is a ledger in which each op's request (client, id) was
// proposed once and applied at the index given, in op order.
func appliedLedger(h *History, index ...uint64) *Ledger {
	l := &Ledger{}
	for i, op := range h.Ops {
		if i < len(index) && index[i] > 0 {
			for _, q := range op.Requests {
				l.Commands = append(l.Commands, LedgerProposal{Broker: q.Broker, Client: op.Client, Request: q.ID, Scope: op.Scope, AppliedIndex: index[i]})
			}
		}
	}
	return l
}

// leasedAck is a group ack of offset by client 0, its one request (id)
// delivered once.
func leasedAck(id uint64, invokeNs, completeNs int64, offset uint64, out HistoryOutcome) HistoryOp {
	op := groupAckOp(id, invokeNs, completeNs, offset, out)
	op.Requests = []HistoryRequest{{ID: id, Broker: 1, Answer: AnswerAcked, Delivered: 1}}
	return op
}

// TestGroupLeaseHonoredExpiry: replayed in log order (the ledger's applied
// indexes), a fetch with room after a lease expired unacknowledged must
// hand the record out again; not when an ack of it applied before, when a
// fetch of unknown effect applied in between (its lost answer may have
// renewed the lease), when the fetch had no room, or without a ledger.
func TestGroupLeaseHonoredExpiry(t *testing.T) {
	handed := leasedFetch(1, 0, 10, 5, 100, 0, 1) // leases 0 and 1 until 105
	forgotten := &History{Ops: []HistoryOp{handed, leasedFetch(2, 200, 210, 205, 100, 0)}}
	rep := HistoryGroupLeases(forgotten, appliedLedger(forgotten, 7, 9))
	wantInvariant(t, "offset 1's lease outlived its expiry", rep.Err, InvariantGroupLeaseHonored)
	if rep.ExpiriesJudged != 1 {
		t.Fatalf("judged %d expiries, want 1", rep.ExpiriesJudged)
	}
	if rep := HistoryGroupLeases(forgotten, nil); rep.Err != nil || rep.ExpiriesJudged != 0 {
		t.Fatalf("without a ledger: %+v", rep)
	}
	redelivered := &History{Ops: []HistoryOp{handed, leasedFetch(2, 200, 210, 205, 100, 0, 1)}}
	if rep := HistoryGroupLeases(redelivered, appliedLedger(redelivered, 7, 9)); rep.Err != nil || rep.ExpiriesJudged != 1 {
		t.Fatalf("redelivered as due: %+v", rep)
	}
	notYet := &History{Ops: []HistoryOp{handed, leasedFetch(2, 100, 110, 104, 100)}}
	if rep := HistoryGroupLeases(notYet, appliedLedger(notYet, 7, 9)); rep.Err != nil {
		t.Fatalf("a fetch before the expiry: %+v", rep)
	}
	acked := &History{Ops: []HistoryOp{handed, leasedAck(3, 20, 0, 1, OutcomeUnknown), leasedFetch(4, 200, 210, 205, 100, 0)}}
	if rep := HistoryGroupLeases(acked, appliedLedger(acked, 7, 8, 9)); rep.Err != nil {
		t.Fatalf("the ack of offset 1 applied before the fetch: %+v", rep)
	}
	if rep := HistoryGroupLeases(acked, appliedLedger(acked, 7, 0, 9)); rep.Err == nil {
		t.Fatalf("an ack that never applied ends no lease: %+v", rep)
	}
	if rep := HistoryGroupLeases(acked, appliedLedger(acked, 7, 10, 9)); rep.Err == nil {
		t.Fatalf("an ack applied after the fetch ends no lease before it: %+v", rep)
	}
	lost := leasedFetch(3, 50, 60, 55, 100)
	lost.Outcome, lost.LeaseExpiryNs = OutcomeUnknown, 0
	overlapped := &History{Ops: []HistoryOp{handed, lost, leasedFetch(4, 200, 210, 205, 100, 0)}}
	if rep := HistoryGroupLeases(overlapped, appliedLedger(overlapped, 7, 8, 9)); rep.Err != nil {
		t.Fatalf("a fetch whose answer was lost applied in between: %+v", rep)
	}
	if rep := HistoryGroupLeases(overlapped, appliedLedger(overlapped, 7, 0, 9)); rep.Err == nil {
		t.Fatalf("the lost fetch never applied: %+v", rep)
	}
	noRoom := leasedFetch(2, 200, 210, 205, 100, 0, 2, 3)
	noRoom.MaxEntries = 3
	full := &History{Ops: []HistoryOp{handed, noRoom}}
	if rep := HistoryGroupLeases(full, appliedLedger(full, 7, 9)); rep.Err != nil || rep.ExpiriesJudged != 0 {
		t.Fatalf("a fetch with no room: %+v", rep)
	}
	drained := &History{Ops: []HistoryOp{handed, groupAckOp(3, 150, 160, 1, OutcomeOK), leasedFetch(4, 200, 210, 205, 100, 0)}}
	if rep := HistoryGroupLeases(drained, appliedLedger(drained, 7, 0, 9)); rep.Err != nil || rep.ExpiriesJudged != 0 {
		t.Fatalf("an ack the ledger cannot place (the drain's) sent before the fetch answered: %+v", rep)
	}
}
