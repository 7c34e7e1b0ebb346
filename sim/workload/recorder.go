package workload

import (
	"fmt"

	"github.com/felixsim/felixsim/properties"
)

// recorder is the run's history as it is written: every client appends an
// invocation and later fills in its completion. One world drives every
// client from one goroutine, so one recorder serves them all.
//
// Invariant: ops[i].ID == i+1; an op's completion is written once.
type recorder struct {
	ops    []properties.HistoryOp
	opsMax int
	// refused counts invocations not made because the history was full.
	refused int
	// writes are the sent writes' calls, for their requests.
	writes sentWrites
}

// invoke records a new operation invoked at nowNs and returns its index,
// or -1 when the history is full (the caller must not make the call).
func (r *recorder) invoke(op properties.HistoryOp, nowNs int64) int {
	if len(r.ops) >= r.opsMax {
		r.refused++
		return -1
	}
	op.ID = uint64(len(r.ops) + 1)
	op.InvokeNs = nowNs
	op.Outcome = properties.OutcomePending
	r.ops = append(r.ops, op)
	return len(r.ops) - 1
}

// op returns the recorded operation at index i for completion.
func (r *recorder) op(i int) *properties.HistoryOp {
	if i < 0 || i >= len(r.ops) {
		panic(fmt.Sprintf("workload: op index %d outside [0, %d)", i, len(r.ops)))
	}
	return &r.ops[i]
}

// complete records op i's completion at nowNs with its outcome.
func (r *recorder) complete(i int, nowNs int64, outcome properties.HistoryOutcome, errMsg string) *properties.HistoryOp {
	op := r.op(i)
	if op.Outcome != properties.OutcomePending {
		panic(fmt.Sprintf("workload: op %d completed twice (was %s, now %s)", op.ID, op.Outcome, outcome))
	}
	if nowNs < op.InvokeNs {
		panic(fmt.Sprintf("workload: op %d completes at %d ns before its invocation at %d ns", op.ID, nowNs, op.InvokeNs))
	}
	op.CompleteNs, op.Outcome, op.Error = nowNs, outcome, errMsg
	return op
}

// history returns a copy of the history so far; calls still open show as
// pending.
func (r *recorder) history() *properties.History {
	h := &properties.History{Ops: append([]properties.HistoryOp(nil), r.ops...)}
	r.writes.attach(h.Ops)
	return h
}
