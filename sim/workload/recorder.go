package workload

import (
	"fmt"
	"slices"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
)

// recorder is the run's history as it is written: every client appends an
// invocation and later fills in its completion. One world drives every
// client from one goroutine, so one recorder serves them all.
//
// It holds the newest operations in blocks of blockOps and streams older
// blocks to a spill file (spill.go) once it holds more than
// heldBlocksMax of them, so a long run's history costs disk, not memory.
// A block goes only when every operation in it completed in an earlier
// event than the one invoking: callers use the *HistoryOp complete
// returns within the event that completed it, and a block never moves.
//
// Invariant: the operation at index i has ID i+1; indexes below spilled
// are in the spill file, the rest in blocks; a completion is written once.
type recorder struct {
	blocks   [][]properties.HistoryOp
	blockOps int
	// spilled counts the operations streamed to the spill file, held
	// those in blocks.
	spilled, held int
	heldBlocksMax int
	spill         historySpill
	opsMax        int
	// refused counts invocations not made because the history was full.
	refused int
	// writes are the sent writes' calls, for their requests.
	writes sentWrites
	// scopes are the scopes of the operations recorded, ascending (one
	// per scope the workload's clients use: a few dozen at most), and
	// scopeOps how many operations each has.
	scopes   []felix.Scope
	scopeOps []int
	// latestNs is the latest invocation or completion recorded.
	latestNs int64
}

// historyBlockOpsMax is how many operations one block of the recorder
// holds at most (fewer when Config.HeldOps is smaller).
const historyBlockOpsMax = 1024

// HeldOpsDefault is how many operations a recorder holds in memory before
// it streams the oldest to disk, when Config.HeldOps is 0: a 20 s run of
// the default workload (about 4,000 operations) never spills; a 60 s one
// spills its first few thousand.
const HeldOpsDefault = 8 * historyBlockOpsMax

// recorded counts the operations recorded so far.
func (r *recorder) recorded() int { return r.spilled + r.held }

// invoke records a new operation invoked at nowNs and returns its index,
// or -1 when the history is full (the caller must not make the call).
func (r *recorder) invoke(op properties.HistoryOp, nowNs int64) int {
	n := r.recorded()
	if n >= r.opsMax {
		r.refused++
		return -1
	}
	if len(r.blocks) > r.heldBlocksMax {
		r.spillDone(nowNs)
	}
	op.ID = uint64(n + 1)
	op.InvokeNs = nowNs
	op.Outcome = properties.OutcomePending
	if last := len(r.blocks) - 1; last < 0 || len(r.blocks[last]) == r.blockOps {
		r.blocks = append(r.blocks, make([]properties.HistoryOp, 0, r.blockOps))
	}
	last := len(r.blocks) - 1
	r.blocks[last] = append(r.blocks[last], op)
	r.held++
	r.latestNs = max(r.latestNs, nowNs)
	i, found := slices.BinarySearchFunc(r.scopes, op.Scope, felix.Scope.Compare)
	if !found {
		r.scopes, r.scopeOps = slices.Insert(r.scopes, i, op.Scope), slices.Insert(r.scopeOps, i, 0)
	}
	r.scopeOps[i]++
	return n
}

// spillDone streams the oldest blocks to the spill file while more than
// heldBlocksMax are held and the oldest holds only operations completed
// before nowNs. After a failed write it keeps everything in memory.
func (r *recorder) spillDone(nowNs int64) {
	for len(r.blocks) > r.heldBlocksMax && len(r.blocks[0]) == r.blockOps && r.spill.failed() == nil {
		b := r.blocks[0]
		for i := range b {
			if b[i].Outcome == properties.OutcomePending || b[i].CompleteNs >= nowNs {
				return // an open call, or one completed in this very event
			}
		}
		r.writes.attachSent(b, r.spilled)
		if r.spill.write(b) != nil {
			return // History reports it
		}
		r.writes.forget(r.spilled, len(b))
		r.spilled += len(b)
		r.held -= len(b)
		r.blocks[0] = nil
		r.blocks = r.blocks[1:]
	}
}

// op returns the recorded operation at index i for completion.
func (r *recorder) op(i int) *properties.HistoryOp {
	j := i - r.spilled
	if i < 0 || j < 0 || j/r.blockOps >= len(r.blocks) || j%r.blockOps >= len(r.blocks[j/r.blockOps]) {
		panic(fmt.Sprintf("workload: op index %d outside the held [%d, %d)", i, r.spilled, r.recorded()))
	}
	return &r.blocks[j/r.blockOps][j%r.blockOps]
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
	r.latestNs = max(r.latestNs, nowNs)
	return op
}

// history returns a copy of the whole history so far, the spilled part
// read back from disk; calls still open show as pending. It fails only
// when the spill file could not be written or read back.
func (r *recorder) history() (*properties.History, error) {
	ops, err := r.spill.read(r.recorded())
	if err != nil {
		return nil, err
	}
	r.writes.countDelivered(ops)
	h := &properties.History{Ops: ops}
	for _, b := range r.blocks {
		h.Ops = append(h.Ops, b...)
	}
	if len(h.Ops) != r.recorded() {
		panic(fmt.Sprintf("workload: history of %d ops, %d recorded (%d spilled, %d held)", len(h.Ops), r.recorded(), r.spilled, r.held))
	}
	r.writes.attach(h.Ops[r.spilled:], r.spilled)
	return h, nil
}

// scopeHistory returns the operations of scopes (ascending) recorded so
// far, in id order: the spilled ones read back from disk (no other
// scope's decoded), then the held ones; calls still open show as pending.
// It fails only when the spill file could not be written or read back.
func (r *recorder) scopeHistory(scopes []felix.Scope) (*properties.History, error) {
	ops, err := r.spill.readScopes(scopes)
	if err != nil {
		return nil, err
	}
	r.writes.countDelivered(ops)
	h := &properties.History{Ops: ops}
	for bi, b := range r.blocks {
		for k := range b {
			if !slices.Contains(scopes, b[k].Scope) {
				continue
			}
			h.Ops = append(h.Ops, b[k])
			r.writes.attach(h.Ops[len(h.Ops)-1:], r.spilled+bi*r.blockOps+k)
		}
	}
	return h, nil
}
