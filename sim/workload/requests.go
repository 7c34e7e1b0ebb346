package workload

import (
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
)

// requestIDs is what the recorder needs of a sent call's client.Pending:
// the ids of every request it sent.
type requestIDs interface{ RequestIDs() []uint64 }

// sentWrites remembers each sent write's call, to name in the history
// the requests it sent and how many copies of each reached a broker.
//
// Invariant: len(calls) <= len(recorder.ops); calls[i] is op i's call, or
// nil (not a write, not sent, or past the end).
type sentWrites struct {
	calls      []requestIDs
	deliveries *cluster.RequestDeliveries
	firstSimID int
}

// sent records that the write recorded at index i went out as call pd.
func (s *sentWrites) sent(i int, pd requestIDs) {
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
			ops[i].Requests = properties.HistoryRequestsOf(pd.RequestIDs(), func(id uint64) (uint32, bool) { return s.deliveries.Copies(from, id) })
		}
	}
}
