package workload

import (
	"fmt"

	"github.com/felixsim/felixsim/client"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
)

// attempts is what the recorder needs of a sent call's client.Pending:
// every request it sent, with its broker and answer.
type attempts interface{ Attempts() []client.Attempt }

// sentWrites remembers each sent call that names its requests (a write,
// live publish, live read, group fetch or ack:
// properties.HistoryKind.RecordsRequests), to name in the history
// the requests it sent (its attempts), the broker each went to, what
// each was answered and how many copies of each reached a broker. It
// forgets the calls of operations the recorder has spilled, which carry
// their requests in the spill file and get their copies counted when
// read back.
//
// Invariant: calls[i] is the call of op index base+i, or nil (not a
// write, not sent); len(calls) <= the recorder's count minus base.
type sentWrites struct {
	calls      []attempts
	base       int
	deliveries *cluster.RequestDeliveries
	firstSimID int
}

// sent records that the write recorded at index i went out as call pd.
func (s *sentWrites) sent(i int, pd attempts) {
	j := i - s.base
	if j < 0 {
		panic(fmt.Sprintf("workload: write %d sent after its calls up to %d were forgotten", i, s.base))
	}
	for len(s.calls) <= j {
		s.calls = append(s.calls, nil)
	}
	s.calls[j] = pd
}

// BindDeliveries makes the history name, for each sent write, its
// requests and the copies of each that t counted delivered to a broker.
// Unbound, a history records no requests (the checks then leave the
// writes' records unjudged).
func (w *Workload) BindDeliveries(t *cluster.RequestDeliveries) {
	w.rec.writes.deliveries, w.rec.writes.firstSimID = t, w.cfg.FirstSimID
}

// call returns the call of op index i, or nil.
func (s *sentWrites) call(i int) attempts {
	if j := i - s.base; j >= 0 && j < len(s.calls) {
		return s.calls[j]
	}
	return nil
}

// attach sets the Requests of every sent write of ops (op index from
// onwards) with their delivered copies; a write one of whose requests
// the tally cannot count is left without.
func (s *sentWrites) attach(ops []properties.HistoryOp, from int) {
	s.attachSent(ops, from)
	s.countDelivered(ops)
}

// attachSent sets the Requests of every sent write of ops (op index from
// onwards) without their copies, which may still be on their way: the
// form a spilled operation is written in (countDelivered completes it).
func (s *sentWrites) attachSent(ops []properties.HistoryOp, from int) {
	if s.deliveries == nil {
		return
	}
	for k := range ops {
		if pd := s.call(from + k); pd != nil {
			if q := HistoryRequestsSent(pd.Attempts()); len(q) > 0 {
				ops[k].Requests = q
			}
		}
	}
}

// countDelivered gives the requests of spilled operations read back their
// delivered copies, as attach would have.
func (s *sentWrites) countDelivered(ops []properties.HistoryOp) {
	if s.deliveries == nil {
		return
	}
	for k := range ops {
		if ops[k].Requests != nil {
			ops[k].Requests = properties.HistoryRequestsOf(ops[k].Requests, s.copiesFrom(ops[k].Client))
		}
	}
}

// copiesFrom counts the delivered copies of client's requests.
func (s *sentWrites) copiesFrom(client int) func(id uint64) (uint32, bool) {
	from := s.firstSimID + client
	return func(id uint64) (uint32, bool) { return s.deliveries.Copies(from, id) }
}

// forget drops the calls of op indexes from..from+n-1, which must be the
// oldest remembered.
func (s *sentWrites) forget(from, n int) {
	if from != s.base {
		panic(fmt.Sprintf("workload: forgetting calls from %d, the oldest held is %d", from, s.base))
	}
	k := min(n, len(s.calls))
	clear(s.calls[:k])
	s.calls = s.calls[k:]
	s.base += n
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
