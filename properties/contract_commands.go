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
	// past every op a trim's place; scope is a trim's.
	key   uint64
	scope felix.Scope
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
	n, err, _ := CommandAnswersHonestIn(h, trims, l, HistoryPart{})
	return n, err
}

// CommandAnswersHonestIn is CommandAnswersHonest over part of a history
// (h holds the part's operations; trims are whole, and l is whole or the
// part's shard groups' steps with every relay command: a relay request id
// names no scope), judging the trims of the part's scopes. foreign
// reports a command proposed for one of the part's scopes that no fetch
// or ack of h sent: where it belongs decides another part's verdict, so
// the caller must judge the history whole (it never happens in a part
// that is the whole).
func CommandAnswersHonestIn(h *History, trims []OutboxTrimCall, l *Ledger, part HistoryPart) (judged int, err error, foreign bool) {
	if l == nil || l.Overflowed {
		return 0, nil, false
	}
	by := map[requestKey][]*LedgerProposal{}
	for i := range l.Commands {
		p := &l.Commands[i]
		k := requestKey{p.Client, p.Request}
		by[k] = append(by[k], p)
	}
	calls := commandCalls(h, trims)
	if part.Scopes != nil {
		calls, foreign = partCalls(calls, l, part)
	}
	v := violations{what: InvariantAnswersHonest}
	for _, c := range calls {
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
	return judged, v.err(), foreign
}

// partCalls are the calls of calls that the part judges (every history
// call, which h holds, and the trims of its scopes), and whether l holds a
// history client's command for the part's scopes that none of them sent.
func partCalls(calls []commandCall, l *Ledger, part HistoryPart) ([]commandCall, bool) {
	var out []commandCall
	mine := map[requestKey]bool{} // the requests of the part's calls; looked up only
	for _, c := range calls {
		if c.client == LedgerRelayClient && !part.holds(c.scope) {
			continue
		}
		for _, q := range c.requests {
			mine[requestKey{c.client, q.ID}] = true
		}
		out = append(out, c)
	}
	for i := range l.Commands {
		p := &l.Commands[i]
		if p.Client >= 0 && part.holds(p.Scope) && !mine[requestKey{p.Client, p.Request}] {
			return out, true
		}
	}
	return out, false
}

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
		out = append(out, commandCall{client: LedgerRelayClient, requests: qs, key: 1<<62 + uint64(i), scope: t.Scope,
			what: fmt.Sprintf("the relay's outbox trim of %s through %d (relay incarnation %d)", t.Scope, t.Through, t.Incarnation)})
	}
	return out
}
