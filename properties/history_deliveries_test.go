package properties

import (
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// deliveredOnce is fixtureHistory with each write's one request (id: the
// op's id) sent to broker 1, delivered once and answered written.
func deliveredOnce() *History {
	h := fixtureHistory()
	for i := range h.Ops {
		h.Ops[i].Requests = []HistoryRequest{{ID: h.Ops[i].ID, Broker: 1, Answer: AnswerWritten, Delivered: 1}}
	}
	return h
}

// testShard is testScope's stream shard, as a landing names it.
var testShard = felix.Scope{Namespace: testScope.Namespace, Stream: testScope.Stream, Shard: testScope.Shard}

// digestOf is the made-up proposal digest of client c's request id.
func digestOf(c int, id uint64) uint64 { return 1000*uint64(c+1) + id }

// honestLedger is what brokers that kept every promise show for h: each
// request answered written proposed once by the broker it went to and
// landed at the op's offset on brokers 1..3.
func honestLedger(h *History) *Ledger {
	l := &Ledger{}
	for i := range h.Ops {
		op := &h.Ops[i]
		for _, q := range op.Requests {
			if q.Answer == AnswerWritten {
				propose(l, q.Broker, op.Client, q.ID, digestOf(op.Client, q.ID))
				land(l, digestOf(op.Client, q.ID), op.Offset)
			}
		}
	}
	return l
}

// propose adds broker b's proposal of client c's request id under digest d.
func propose(l *Ledger, b uint64, c int, id, d uint64) {
	l.Proposals = append(l.Proposals, LedgerProposal{Broker: b, Client: c, Request: id, Scope: testScope, Digest: d})
}

// land adds a landing of digest d at offset of testScope's shard.
func land(l *Ledger, d, offset uint64) {
	l.Landings = append(l.Landings, LedgerLanding{Digest: d, Shard: testShard, Offset: offset, Brokers: []uint64{1, 2, 3}})
}

func TestHistoryLandsAtMostOncePerDelivery(t *testing.T) {
	h := deliveredOnce()
	mustHold(t, "each request landed once per delivery", HistoryLandsAtMostOncePerDelivery(h, honestLedger(h)))

	// A broker that proposed one delivered copy twice (a leader
	// re-proposing a pending write: one digest, two entries).
	twice := honestLedger(h)
	land(twice, digestOf(0, 3), 4)
	mustFail(t, "one delivery landed twice", HistoryLandsAtMostOncePerDelivery(h, twice),
		"op 3 (commit by client 0 on acme/orders/order-events/1): request 3 landed 2 times (orders/order-events/1 offset 2 (applied by broker 1,2,3), orders/order-events/1 offset 4 (applied by broker 1,2,3)) but was delivered 1 times")

	// The network duplicated the request: two copies, two landings.
	dup := deliveredOnce()
	dup.Ops[2].Requests[0].Delivered = 2
	mustHold(t, "a duplicated delivery landed twice", HistoryLandsAtMostOncePerDelivery(dup, twice))

	// One copy proposed twice, traced both times (two digests).
	proposedTwice := honestLedger(h)
	propose(proposedTwice, 1, 0, 3, 77)
	mustFail(t, "one delivery proposed twice", HistoryLandsAtMostOncePerDelivery(h, proposedTwice), "request 3 was proposed 2 times (by broker 1,1) but delivered 1 times")

	// A NotLeader redirect re-sent it under a new id, and both landed: one
	// landing per request.
	redirected := deliveredOnce()
	redirected.Ops[2].Requests = []HistoryRequest{{ID: 3, Broker: 1, Answer: AnswerNone, Delivered: 1}, {ID: 7, Broker: 2, Answer: AnswerWritten, Delivered: 1}}
	both := honestLedger(redirected)
	propose(both, 1, 0, 3, digestOf(0, 3))
	land(both, digestOf(0, 3), 4)
	mustHold(t, "a redirected write's two requests landed once each", HistoryLandsAtMostOncePerDelivery(redirected, both))

	// A retry carries its original's payload but its own request: the
	// original's request landing twice is not excused by the retry's
	// delivery (a payload count would sum the two).
	e2 := fixtureEntries()[2].Record
	retried := addOp(deliveredOnce(), HistoryOp{Kind: HistoryCommit, Record: &e2, RetryOf: 3, InvokeNs: 50, CompleteNs: 60,
		Outcome: OutcomeUnknown, Requests: []HistoryRequest{{ID: 9, Broker: 2, Answer: AnswerNone, Delivered: 1}}})
	mustFail(t, "the original landed twice beside a retry that never landed", HistoryLandsAtMostOncePerDelivery(retried, twice), "request 3 landed 2 times")
	retriedLanded := honestLedger(retried)
	propose(retriedLanded, 2, 0, 9, digestOf(0, 9))
	land(retriedLanded, digestOf(0, 9), 4)
	mustHold(t, "a retry's request landed beside its original's", HistoryLandsAtMostOncePerDelivery(retried, retriedLanded))

	// A request no copy of which reached a broker cannot land.
	never := deliveredOnce()
	never.Ops[3].Requests[0].Delivered = 0
	mustFail(t, "landed without a delivery", HistoryLandsAtMostOncePerDelivery(never, honestLedger(never)), "request 4 was proposed 1 times (by broker 1) but delivered 0 times")

	// Requests not recorded, or a ledger that left steps out: not judged.
	unrecorded := deliveredOnce()
	unrecorded.Ops[2].Requests = nil
	mustHold(t, "unrecorded requests are not judged", HistoryLandsAtMostOncePerDelivery(unrecorded, twice))
	twice.Overflowed = true
	mustHold(t, "an overflowed ledger is not judged", HistoryLandsAtMostOncePerDelivery(h, twice))
}
