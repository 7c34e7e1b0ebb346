package properties

import (
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// liveCompleteHistory is liveHistory with its reads' requests recorded:
// both answered by broker 1, which acknowledged p1 and p2 in between, so
// the second read must hold both.
func liveCompleteHistory() *History {
	h := liveHistory()
	h.Ops[0].Requests = []HistoryRequest{{ID: 1, Broker: 1, Answer: AnswerEntries, Delivered: 1}}
	h.Ops[3].Requests = []HistoryRequest{{ID: 4, Broker: 1, Answer: AnswerEntries, Delivered: 1}}
	return h
}

// TestLiveReadsComplete: the second read holding both publishes passes;
// answered empty, or without one of them, it fails; the pair is not
// judged when the leadership moved in between, when another broker
// answered, when the second read is full, when the reads are too far
// apart for the subscriber to be sure to stay live, when a read's copy
// was duplicated, or when a third read was in flight.
func TestLiveReadsComplete(t *testing.T) {
	const boundNs = 500
	if n, err := HistoryLiveReadsComplete(liveCompleteHistory(), nil, boundNs); err != nil || n != 1 {
		t.Fatalf("complete reads: judged %d, %v", n, err)
	}
	empty := liveCompleteHistory()
	empty.Ops[3].Entries = nil
	_, err := HistoryLiveReadsComplete(empty, nil, boundNs)
	wantInvariant(t, "an empty answer while two publishes were queued", err, InvariantEphemeralLiveComplete)
	redirected := liveCompleteHistory()
	redirected.Ops[3].Entries = nil
	redirected.Ops[0].Requests = append([]HistoryRequest{{ID: 0, Broker: 2, Answer: AnswerNotLeader, Delivered: 1}}, redirected.Ops[0].Requests...)
	_, err = HistoryLiveReadsComplete(redirected, nil, boundNs)
	wantInvariant(t, "an empty answer after a redirect from another broker", err, InvariantEphemeralLiveComplete)
	short := liveCompleteHistory()
	short.Ops[3].Entries = short.Ops[3].Entries[1:]
	_, err = HistoryLiveReadsComplete(short, nil, boundNs)
	wantInvariant(t, "p1 left out", err, InvariantEphemeralLiveComplete)

	notJudged := map[string]func(h *History) []LeaderChange{
		"a promotion in between": func(h *History) []LeaderChange {
			return []LeaderChange{{Shard: felix.Scope{Namespace: "orders", Stream: "order-live"}, AtNs: 30, Broker: 2}}
		},
		"the answering broker restarted": func(h *History) []LeaderChange {
			return []LeaderChange{{Shard: felix.Scope{Namespace: "orders", Stream: "order-live"}, AtNs: 30, Broker: 1, Restart: true}}
		},
		"another broker answered": func(h *History) []LeaderChange { h.Ops[3].Requests[0].Broker = 2; return nil },
		"the second read is full": func(h *History) []LeaderChange {
			h.Ops[3].MaxEntries, h.Ops[3].Entries = 1, []felix.Entry{liveEntry(0, "p1")}
			return nil
		},
		"too far apart":     func(h *History) []LeaderChange { h.Ops[3].InvokeNs, h.Ops[3].CompleteNs = 600, 610; return nil },
		"a duplicated read": func(h *History) []LeaderChange { h.Ops[0].Requests[0].Delivered = 2; return nil },
		"a read redirected by the broker that answered it": func(h *History) []LeaderChange {
			h.Ops[3].Requests = append([]HistoryRequest{{ID: 3, Broker: 1, Answer: AnswerNotLeader, Delivered: 1}}, h.Ops[3].Requests...)
			return nil
		},
		"a third read in flight": func(h *History) []LeaderChange {
			h.Ops = append(h.Ops, HistoryOp{ID: 6, Client: 0, Kind: HistoryLiveRead, Scope: liveScope, MaxEntries: 16, InvokeNs: 5, CompleteNs: 45, Outcome: OutcomeUnknown})
			return nil
		},
	}
	for name, breakIt := range notJudged {
		h := liveCompleteHistory()
		h.Ops[3].Entries = nil
		changes := breakIt(h)
		if n, err := HistoryLiveReadsComplete(h, changes, boundNs); err != nil || n != 0 {
			t.Errorf("%s: judged %d, %v", name, n, err)
		}
	}
}
