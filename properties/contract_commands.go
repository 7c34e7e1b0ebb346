package properties

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
)

// Honest answers beyond writes. A group fetch, a group ack and an outbox
// trim go through the shard's raft log like a write, so an answer to one
// of them makes the promise an answer to a write makes for the copy it
// answers (the table of error codes in docs/atomic-commit.md): NotLeader
// ("this copy was not written": the broker does not lead, so it proposes
// nothing) and Unavailable ("this copy ... was not proposed"). A leader
// that steps down and answers NotLeader for a command it had already
// proposed breaks it: the command may still commit under the next leader
// (a fetch's records leased to nobody, an ack or a trim applied although
// the client re-sent it as one that was not). HistoryAnswersHonest judges
// writes; CommandAnswersHonest judges the commands by the same rule, with
// the proposals the brokers' trace shows (Ledger.Commands).

// OutboxTrimCall is one outbox trim the relay sent: its incarnation (the
// relay's boot; a new boot's client numbers its requests from 1 again),
// what it confirmed, when, and its requests with their answers and the
// copies of each delivered to a broker.
type OutboxTrimCall struct {
	Incarnation uint64
	Scope       felix.Scope
	Through     uint64
	InvokeNs    int64
	CompleteNs  int64
	Requests    []HistoryRequest
}

// commandCall is one judged call: who sent it (a history client or
// LedgerRelayClient), what it was, and its requests.
type commandCall struct {
	client   int
	what     string
	requests []HistoryRequest
	// key orders the call's findings (MergeFindings): its op's id, or
	// past every op a trim's place.
	key uint64
}

// CommandAnswersHonest checks AnswersHonest for the commands: every group
// fetch and ack of h and every relay trim of trims whose request a broker
// answered NotLeader or Unavailable was proposed by that broker no more
// often than other copies of it were delivered. A trim whose request id
// two relay incarnations both used is not judged (the trace names a
// request by sender and id only); nor is a call whose requests were not
// recorded, nor anything when the ledger overflowed. It returns how many
// answers it judged.
func CommandAnswersHonest(h *History, trims []OutboxTrimCall, l *Ledger) (int, error) {
	if l == nil || l.Overflowed {
		return 0, nil
	}
	by := map[requestKey][]*LedgerProposal{}
	for i := range l.Commands {
		p := &l.Commands[i]
		k := requestKey{p.Client, p.Request}
		by[k] = append(by[k], p)
	}
	v := violations{what: InvariantAnswersHonest}
	judged := 0
	for _, c := range commandCalls(h, trims) {
		v.at = c.key
		for _, q := range c.requests {
			if !q.Answer.NotProposed() {
				continue
			}
			judged++
			n := 0
			for _, p := range by[requestKey{c.client, q.ID}] {
				if p.Broker == q.Broker {
					n++
				}
			}
			if others := int(max(q.Delivered, 1)) - 1; n > others {
				v.add("%s: broker %d answered request %d %s (this copy was not proposed), yet proposed it %d times of %d copies delivered",
					c.what, q.Broker, q.ID, q.Answer, n, q.Delivered)
			}
		}
	}
	return judged, v.err()
}

// commandCalls lists the judged calls: h's sent group fetches and acks
// with recorded requests, and the relay's trims whose request ids no other
// incarnation's trim used.
func commandCalls(h *History, trims []OutboxTrimCall) []commandCall {
	var out []commandCall
	for i := range h.Ops {
		op := &h.Ops[i]
		if (op.Kind == HistoryGroupFetch || op.Kind == HistoryGroupAck) && !op.NotSent && op.Requests != nil {
			out = append(out, commandCall{client: op.Client, requests: op.Requests, key: op.ID,
				what: fmt.Sprintf("op %d (%s by client %d on %s)", op.ID, op.Kind, op.Client, op.Scope)})
		}
	}
	incarnations := map[uint64]map[uint64]bool{} // request id -> incarnations that used it
	for _, t := range trims {
		for _, q := range t.Requests {
			if incarnations[q.ID] == nil {
				incarnations[q.ID] = map[uint64]bool{}
			}
			incarnations[q.ID][t.Incarnation] = true
		}
	}
	for i := range trims {
		t := &trims[i]
		var qs []HistoryRequest
		for _, q := range t.Requests {
			if len(incarnations[q.ID]) == 1 {
				qs = append(qs, q)
			}
		}
		out = append(out, commandCall{client: LedgerRelayClient, requests: qs, key: 1<<62 + uint64(i),
			what: fmt.Sprintf("the relay's outbox trim of %s through %d (relay incarnation %d)", t.Scope, t.Through, t.Incarnation)})
	}
	return out
}
