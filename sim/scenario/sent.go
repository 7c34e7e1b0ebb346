package scenario

import (
	"github.com/felixsim/felixsim/client"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
)

// sentWrite is a call the scenario sent whose history op names its
// requests (properties.HistoryKind.RecordsRequests): its history op, the
// sender's sim id and the call, for the requests it sent.
type sentWrite struct {
	op   int
	from int
	call interface{ Attempts() []client.Attempt }
}

// noteSent remembers history op i's write call p, unless it was refused
// before sending (err). A scenario's history is as long as its script,
// so the list is bounded by the commands it runs.
func noteSent[T any](r *Runner, i int, who caller, p *client.Pending[T], err error) {
	if err != nil {
		return
	}
	r.sent = append(r.sent, sentWrite{op: i, from: who.proc.SimID(), call: p})
}

// attachRequests sets each sent write's Requests in ops: the requests its
// call sent so far (each with its broker and answer) and the copies of
// each the cluster counted delivered.
func (r *Runner) attachRequests(ops []properties.HistoryOp) {
	if r.c == nil {
		return
	}
	t := r.c.RequestDeliveries()
	for _, s := range r.sent {
		from := s.from
		var sent []properties.HistoryRequest
		for _, a := range s.call.Attempts() {
			sent = append(sent, properties.HistoryRequest{ID: a.RequestID, Broker: uint64(a.Broker), Answer: properties.HistoryAnswerOfWire(a.AnswerName())})
		}
		ops[s.op].Requests = properties.HistoryRequestsOf(sent, func(id uint64) (uint32, bool) { return t.Copies(from, id) })
	}
}

// ledgerOf is what the brokers' trace showed of the scenario's requests,
// their senders read as the scenario's clients (history client i is
// ClientNames[i]); it fails only when the ledger's file failed.
func (r *Runner) ledgerOf(c *cluster.Cluster) (*properties.Ledger, error) {
	return r.ledger.Ledger(c.Config().Streams, func(simID uint64) (int, bool) {
		for i, n := range r.clientNames() {
			if p := r.client[n]; p != nil && uint64(p.SimID()) == simID {
				return i, true
			}
		}
		return 0, false
	})
}
