package workload

import (
	"github.com/felixsim/felixsim/client"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
)

// attempts is what the recorder needs of a sent call's client.Pending:
// every request it sent, with its broker and answer.
type attempts interface{ Attempts() []client.Attempt }

// sentWrites remembers each sent write's call, to name in the history
// the requests it sent (its attempts), the broker each went to, what
// each was answered and how many copies of each reached a broker.
//
// Invariant: len(calls) <= len(recorder.ops); calls[i] is op i's call, or
// nil (not a write, not sent, or past the end).
type sentWrites struct {
	calls      []attempts
	deliveries *cluster.RequestDeliveries
	firstSimID int
}

// sent records that the write recorded at index i went out as call pd.
func (s *sentWrites) sent(i int, pd attempts) {
	for len(s.calls) <= i {
		s.calls = append(s.calls, nil)
	}
	s.calls[i] = pd
}

// BindDeliveries makes the history name, for each sent write, its
// requests and the copies of each that t counted delivered to a broker.
// Unbound, a history records no requests (the checks then leave the
// writes' records unjudged).
func (w *Workload) BindDeliveries(t *cluster.RequestDeliveries) {
	w.rec.writes.deliveries, w.rec.writes.firstSimID = t, w.cfg.FirstSimID
}

// attach sets the Requests of every recorded sent write of ops; a write
// one of whose requests the tally cannot count is left without.
func (s *sentWrites) attach(ops []properties.HistoryOp) {
	if s.deliveries == nil {
		return
	}
	for i, pd := range s.calls {
		if pd != nil {
			from := s.firstSimID + ops[i].Client
			ops[i].Requests = properties.HistoryRequestsOf(HistoryRequestsSent(pd.Attempts()), func(id uint64) (uint32, bool) { return s.deliveries.Copies(from, id) })
		}
	}
}

// HistoryRequestsSent is a call's attempts as the history records its
// requests: id, broker and answer (their delivered copies still to count).
func HistoryRequestsSent(ats []client.Attempt) []properties.HistoryRequest {
	out := make([]properties.HistoryRequest, len(ats))
	for i, a := range ats {
		out[i] = properties.HistoryRequest{ID: a.RequestID, Broker: uint64(a.Broker), Answer: properties.HistoryAnswerOfWire(a.AnswerName())}
	}
	return out
}
