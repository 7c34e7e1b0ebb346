package properties

import (
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// redirectedOnce is deliveredOnce with op 3's write first sent to broker
// 1 as request 3 (answered answer), then re-sent to broker 2 as request
// 7, written at 2.
func redirectedOnce(answer HistoryAnswer) *History {
	h := deliveredOnce()
	h.Ops[2].Requests = []HistoryRequest{{ID: 3, Broker: 1, Answer: answer, Delivered: 1}, {ID: 7, Broker: 2, Answer: AnswerWritten, Delivered: 1}}
	return h
}

func TestHistoryAnswersHonest(t *testing.T) {
	h := deliveredOnce()
	mustHold(t, "every request written where answered", HistoryAnswersHonest(h, honestLedger(h)))

	// The bug: a leader proposed request 3, lost the lead, and
	// answered NotLeader; the client's re-send landed too.
	nl := redirectedOnce(AnswerNotLeader)
	lied := honestLedger(nl)
	propose(lied, 1, 0, 3, digestOf(0, 3))
	mustFail(t, "NotLeader after proposing", HistoryAnswersHonest(nl, lied),
		"broker 1 answered request 3 NotLeader (this copy was not proposed), yet proposed it 1 times of 1 copies delivered")
	mustHold(t, "NotLeader without proposing", HistoryAnswersHonest(nl, honestLedger(nl)))
	un := redirectedOnce(AnswerUnavailable)
	mustFail(t, "Unavailable after proposing", HistoryAnswersHonest(un, lied), "answered request 3 Unavailable")

	// A duplicated copy may have been proposed before the broker stepped
	// down and refused the other copy.
	dup := redirectedOnce(AnswerNotLeader)
	dup.Ops[2].Requests[0].Delivered = 2
	mustHold(t, "NotLeader for one of two copies", HistoryAnswersHonest(dup, lied))

	// The proposal that landed speaks against any "wrote nothing" answer.
	land(lied, digestOf(0, 3), 4)
	for _, a := range []HistoryAnswer{AnswerRefused, AnswerUnknownStream, AnswerFeatureNotFinalized, AnswerInvalidRequest} {
		h := redirectedOnce(a)
		mustFail(t, "landed after "+a.String(), HistoryAnswersHonest(h, lied), "answered request 3 "+a.String()+" (this copy wrote nothing), yet it landed 1 times")
	}
	for _, a := range []HistoryAnswer{AnswerNone, AnswerTimeout, AnswerInternal, AnswerMismatch, AnswerUnrecorded} {
		h := redirectedOnce(a)
		mustHold(t, "landed after "+a.String()+", which promises nothing", HistoryAnswersHonest(h, lied))
	}

	// Written at an offset where the request never landed.
	wrong := deliveredOnce()
	wrong.Ops[1].Offset = 3
	mustFail(t, "written where it did not land", HistoryAnswersHonest(wrong, honestLedger(h)),
		"broker 1 answered request 2 written at offset 3, yet it landed there in no broker's applies (landings: orders/order-events/1 offset 1")
	acked := deliveredOnce()
	missing := honestLedger(acked)
	missing.Landings = missing.Landings[1:]
	mustFail(t, "written, never landed", HistoryAnswersHonest(acked, missing), "request 1 written at offset 0, yet it landed there in no broker's applies (landings: none)")
	missing.Overflowed = true
	mustHold(t, "an overflowed ledger is not judged", HistoryAnswersHonest(acked, missing))
}

func TestHistoryFailedWroteNothing(t *testing.T) {
	r := rec("never-landed", put("order-1", "lost"))
	failed := HistoryOp{Kind: HistoryCommit, Record: &r, InvokeNs: 50, CompleteNs: 60, Outcome: OutcomeFailed, Error: "InvalidRequest",
		Requests: []HistoryRequest{{ID: 9, Broker: 1, Answer: AnswerInvalidRequest, Delivered: 1}}}
	h := addOp(deliveredOnce(), failed)
	l := honestLedger(h)
	mustHold(t, "failed write landed nowhere", HistoryFailedWroteNothing(h, l))
	propose(l, 1, 0, 9, digestOf(0, 9))
	mustHold(t, "failed write proposed, nothing written", HistoryFailedWroteNothing(h, l))
	land(l, digestOf(0, 9), 4)
	mustFail(t, "failed write landed", HistoryFailedWroteNothing(h, l),
		"op 5 (commit by client 0 on acme/orders/order-events/1) was recorded failed (InvalidRequest), yet its request 9 (to broker 1, answered InvalidRequest) landed: orders/order-events/1 offset 4")

	// The blind spot: a retry carries its original's payload, so
	// matching by payload could never prove a failed retry wrong. By id,
	// the retry's own request landing convicts it, and the original's
	// landing does not.
	leaked := fixtureEntries()[2].Record
	retry := HistoryOp{Kind: HistoryCommit, Record: &leaked, RetryOf: 3, InvokeNs: 50, CompleteNs: 60, Outcome: OutcomeFailed, Error: "gave up",
		Requests: []HistoryRequest{{ID: 9, Broker: 2, Answer: AnswerNone, Delivered: 1}}}
	retried := addOp(deliveredOnce(), retry)
	rl := honestLedger(retried)
	mustHold(t, "failed retry of a write whose original landed", HistoryFailedWroteNothing(retried, rl))
	propose(rl, 2, 0, 9, digestOf(0, 9))
	land(rl, digestOf(0, 9), 4)
	mustFail(t, "failed retry that landed itself", HistoryFailedWroteNothing(retried, rl), "op 5 (commit by client 0 on acme/orders/order-events/1) was recorded failed (gave up), yet its request 9")

	// Another client's request with the same id is not this write's.
	other := honestLedger(h)
	propose(other, 1, 1, 9, digestOf(1, 9))
	land(other, digestOf(1, 9), 4)
	mustHold(t, "another client's request 9 landed", HistoryFailedWroteNothing(h, other))

	notSent := addOp(deliveredOnce(), HistoryOp{Kind: HistoryCommit, Record: &r, InvokeNs: 50, CompleteNs: 50, Outcome: OutcomeFailed, NotSent: true})
	mustHold(t, "not-sent writes are RefusedBeforeSending's", HistoryFailedWroteNothing(notSent, l))
}

func TestHistoryLandingsMatchRequests(t *testing.T) {
	h := deliveredOnce()
	rs := replicas(3)
	ref := LongestLogs(rs)
	mustHold(t, "every landing is its request's record", HistoryLandingsMatchRequests(h, honestLedger(h), &ref))

	orphan := honestLedger(h)
	land(orphan, 55, 4)
	mustFail(t, "a record nobody proposed", HistoryLandingsMatchRequests(h, orphan, &ref),
		"a record landed at orders/order-events/1 offset 4 (applied by broker 1,2,3) that no client request proposed (entry digest 0000000000000037)")

	moved := honestLedger(h)
	moved.Landings[0].Shard.Shard = 2
	mustFail(t, "landed on another shard", HistoryLandingsMatchRequests(h, moved, &ref), "request 1 of client 0, proposed by broker 1 for acme/orders/order-events/1, landed on another shard: orders/order-events/2 offset 0")

	// The record at a landing's offset is another write's.
	swapped := honestLedger(h)
	swapped.Landings[1].Offset, swapped.Landings[2].Offset = 2, 1
	mustFail(t, "the log holds another record", HistoryLandingsMatchRequests(h, swapped, &ref),
		`op 2 (commit by client 0 on acme/orders/order-events/1): its request 2 landed at offset 2, where the log holds another record (payload "e2" vs "e1")`)
	dropped := LongestLogs([]ReplicaLog{{Node: 1, Scopes: []ReplicaView{windowOf(fixtureEntries()[3])}}})
	mustHold(t, "retention dropped the offsets", HistoryLandingsMatchRequests(h, swapped, &dropped))

	// A proposal for a history client that no write of its history sent.
	unclaimed := honestLedger(h)
	propose(unclaimed, 2, 0, 42, 4242)
	mustFail(t, "a request the history does not record", HistoryLandingsMatchRequests(h, unclaimed, &ref),
		"broker 2 proposed request 42 of client 0 on acme/orders/order-events/1, which no write of that client's history sent")
	propose(unclaimed, 2, -1, 43, 4343)
	land(unclaimed, 4343, 4)
	h.Ops[0].Requests = nil
	mustHold(t, "a sender no history records, and a client with unrecorded requests", HistoryLandingsMatchRequests(h, unclaimed, &ref))
}

// TestHistoryAnswerPromises states the promises of the wire's codes once
// more, as a table: which answers say the copy was not proposed, and
// which that it wrote nothing.
func TestHistoryAnswerPromises(t *testing.T) {
	notProposed := map[HistoryAnswer]bool{AnswerNotLeader: true, AnswerUnavailable: true}
	unknown := map[HistoryAnswer]bool{AnswerUnrecorded: true, AnswerNone: true, AnswerWritten: true, AnswerMismatch: true, AnswerTimeout: true, AnswerInternal: true,
		AnswerEntries: true, AnswerDeliveries: true} // a read's records promise nothing of a write
	for a := AnswerUnrecorded; a < historyAnswerEnd; a++ {
		if a.NotProposed() != notProposed[a] || a.WroteNothing() == unknown[a] {
			t.Errorf("%s: not proposed %t, wrote nothing %t", a, a.NotProposed(), a.WroteNothing())
		}
		if got := HistoryAnswerOfWire(a.String()); got != a && a != AnswerUnrecorded {
			t.Errorf("%s reads back as %s", a, got)
		}
	}
	if HistoryAnswerOfWire("state_value") != AnswerMismatch || HistoryAnswerOfWire("unrecorded") != AnswerMismatch {
		t.Error("an answer that does not fit a write is not a mismatch")
	}
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
