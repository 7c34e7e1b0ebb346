package properties

import "testing"

// TestCommandAnswersHonest: a fetch, an ack and a relay trim answered
// NotLeader pass when the answering broker never proposed them (or only
// another delivered copy), and fail when it did; a trim whose request id
// two relay incarnations used is not judged.
func TestCommandAnswersHonest(t *testing.T) {
	fetch := leasedFetch(1, 0, 10, 5, 100)
	fetch.Requests = []HistoryRequest{{ID: 7, Broker: 2, Answer: AnswerNotLeader, Delivered: 1}, {ID: 8, Broker: 1, Answer: AnswerDeliveries, Delivered: 1}}
	ack := groupAckOp(2, 20, 30, 0, OutcomeOK)
	ack.Client, ack.Requests = 1, []HistoryRequest{{ID: 3, Broker: 3, Answer: AnswerUnavailable, Delivered: 2}}
	h := &History{Ops: []HistoryOp{fetch, ack}}
	trims := []OutboxTrimCall{{Incarnation: 1, Scope: testScope, Through: 4, Requests: []HistoryRequest{{ID: 5, Broker: 2, Answer: AnswerNotLeader, Delivered: 1}}}}
	l := &Ledger{Commands: []LedgerProposal{
		{Broker: 1, Client: 0, Request: 8, Scope: testScope, Digest: 80}, // the answered copy
		{Broker: 3, Client: 1, Request: 3, Scope: testScope, Digest: 30}, // the ack's other delivered copy
		{Broker: 2, Client: 0, Request: 5, Scope: testScope, Digest: 50}, // client 0's request 5: not the relay's
	}}
	if n, err := CommandAnswersHonest(h, trims, l); err != nil || n != 3 {
		t.Fatalf("honest answers: judged %d, %v", n, err)
	}
	for name, p := range map[string]LedgerProposal{
		"a fetch answered NotLeader by the broker that proposed it":                      {Broker: 2, Client: 0, Request: 7, Digest: 70},
		"an ack proposed for both its copies by the broker that said Unavailable to one": {Broker: 3, Client: 1, Request: 3, Digest: 31},
		"a trim answered NotLeader by the broker that proposed it":                       {Broker: 2, Client: LedgerRelayClient, Request: 5, Digest: 51},
	} {
		broken := &Ledger{Commands: append(append([]LedgerProposal(nil), l.Commands...), p)}
		_, err := CommandAnswersHonest(h, trims, broken)
		wantInvariant(t, name, err, InvariantAnswersHonest)
	}
	reused := append(trims, OutboxTrimCall{Incarnation: 2, Scope: testScope, Through: 9, Requests: []HistoryRequest{{ID: 5, Broker: 1, Answer: AnswerAcked, Delivered: 1}}})
	ambiguous := &Ledger{Commands: []LedgerProposal{{Broker: 2, Client: LedgerRelayClient, Request: 5, Digest: 51}}}
	if n, err := CommandAnswersHonest(&History{}, reused, ambiguous); err != nil || n != 0 {
		t.Fatalf("a request id two relay incarnations used: judged %d, %v", n, err)
	}
}
