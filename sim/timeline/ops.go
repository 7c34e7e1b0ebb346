package timeline

import (
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/runner"
)

// A long run holds far more operations than a page can carry one by one
// (a 600 s run has over 100,000), so the page shows them at two levels:
// every operation is counted, by outcome, in its client's bin of the
// time it was invoked (BinsMax bins over the run), and the operations
// of the bins nearest the violating ones, up to ExactOpsMax, are kept
// one by one (with every violating operation, whatever its bin). The page
// draws the bins where the view holds more operations than it can draw.

// BinsMax caps the bins the run's time is cut into; a bin is the
// shortest 1, 2 or 5 times a power of ten nanoseconds that keeps the
// count within it.
const BinsMax = 2400

// ExactOpsMax caps the operations kept one by one beyond the violating
// ones. Overflow policy: the bins farthest from a violating operation
// (from the run's start when none is) keep only their counts.
const ExactOpsMax = 24000

// OpRowsMax caps the rows a client lane stacks overlapping operations
// into; operations beyond it share the last row.
const OpRowsMax = 8

// Outcomes are the outcome classes a bin counts, in the page's order.
var Outcomes = []properties.HistoryOutcome{properties.OutcomeOK, properties.OutcomeRefused,
	properties.OutcomeFailed, properties.OutcomeUnknown, properties.OutcomePending}

// Op is one operation drawn on its own.
type Op struct {
	ID           uint64
	FromNs, ToNs int64 // ToNs is the run's end for a pending operation
	Kind         properties.HistoryKind
	Outcome      properties.HistoryOutcome
	Scope        string
	Offset       uint64
	Row          int
	// Invariant is the invariant a violating operation shows ("" else),
	// and Detail its hover text (with its error, if any).
	Invariant string
	Detail    string
}

// ClientLane is one workload client's operations.
type ClientLane struct {
	Name   string
	Client int
	Rows   int
	// Ops are the operations kept one by one, by invocation.
	Ops []Op
	// Bins[c][i] counts the operations of outcome Outcomes[c] invoked in
	// bin i, every operation of the lane counted once.
	Bins [][]int
}

// BinRange is bins [From, To).
type BinRange struct{ From, To int }

// binWidth is the shortest 1, 2 or 5 times a power of ten nanoseconds
// that cuts endNs into at most BinsMax bins.
func binWidth(endNs int64) int64 {
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if w := m * p; (endNs+w-1)/w <= BinsMax-1 {
				return w
			}
		}
	}
}

// binCount is how many bins of width binNs hold the times 0..endNs.
func binCount(endNs, binNs int64) int { return int(endNs/binNs) + 1 }

// binOf is the bin of time t (times past the end fall in the last).
func binOf(t, binNs int64, bins int) int { return min(max(int(t/binNs), 0), bins-1) }

// addOps fills m's client lanes from h: every operation counted in its
// bin, those of the exact bins (up to budget operations) and the
// violating ones kept one by one.
func addOps(m *Model, h *properties.History, vs []runner.Violation, budget int) {
	m.BinNs = binWidth(m.EndNs)
	bins := binCount(m.EndNs, m.BinNs)
	if h == nil {
		return
	}
	bad := violatingOps(vs)
	perBin := make([]int, bins)
	var centres []int
	for i := range h.Ops {
		b := binOf(h.Ops[i].InvokeNs, m.BinNs, bins)
		perBin[b]++
		if _, ok := bad[h.Ops[i].ID]; ok {
			centres = append(centres, b)
		}
	}
	exact := exactBins(perBin, centres, budget)
	m.Exact = binRanges(exact)
	byClient := map[int]*ClientLane{}
	var ids []int
	for i := range h.Ops {
		op := &h.Ops[i]
		l := byClient[op.Client]
		if l == nil {
			l = &ClientLane{Name: fmt.Sprintf("client %d", op.Client), Client: op.Client, Bins: make([][]int, len(Outcomes))}
			for c := range l.Bins {
				l.Bins[c] = make([]int, bins)
			}
			byClient[op.Client] = l
			ids = append(ids, op.Client)
		}
		b := binOf(op.InvokeNs, m.BinNs, bins)
		l.Bins[outcomeClass(op.Outcome)][b]++
		inv, isBad := bad[op.ID]
		if exact[b] || isBad {
			l.Ops = append(l.Ops, newOp(op, inv, isBad, m.EndNs))
		}
	}
	sort.Ints(ids)
	for _, id := range ids {
		l := byClient[id]
		sort.SliceStable(l.Ops, func(i, j int) bool { return l.Ops[i].FromNs < l.Ops[j].FromNs })
		l.Rows = stackOps(l.Ops, OpRowsMax)
		m.Clients = append(m.Clients, *l)
	}
}

// outcomeClass is o's index in Outcomes (an invalid outcome counts as
// pending: not known to have ended).
func outcomeClass(o properties.HistoryOutcome) int {
	for i, c := range Outcomes {
		if c == o {
			return i
		}
	}
	return len(Outcomes) - 1
}

func newOp(op *properties.HistoryOp, inv string, bad bool, endNs int64) Op {
	to := op.CompleteNs
	if op.Outcome == properties.OutcomePending || to < op.InvokeNs {
		to = endNs
	}
	o := Op{ID: op.ID, FromNs: op.InvokeNs, ToNs: to, Kind: op.Kind, Outcome: op.Outcome, Scope: op.Scope.String(), Offset: op.Offset}
	if bad {
		o.Invariant = inv
		o.Detail = fmt.Sprintf("%s — op %d: client %d %s on %s, %s to %s, %s", inv, op.ID, op.Client, op.Kind, o.Scope, secs(op.InvokeNs), secs(to), op.Outcome)
		if op.Offset != 0 {
			o.Detail += fmt.Sprintf(" at offset %d", op.Offset)
		}
		if op.Error != "" {
			o.Detail += ": " + op.Error
		}
	}
	return o
}

// exactBins picks the bins whose operations are kept one by one: every
// bin when the operations number at most budget; else the bins nearest
// the centres (the violating operations' bins; the first bin when there
// are none), nearest first, as long as their operations fit.
func exactBins(perBin []int, centres []int, budget int) []bool {
	exact := make([]bool, len(perBin))
	total := 0
	for _, n := range perBin {
		total += n
	}
	if total <= budget {
		for i := range exact {
			exact[i] = true
		}
		return exact
	}
	if len(centres) == 0 {
		centres = []int{0}
	}
	dist := make([]int, len(perBin))
	order := make([]int, len(perBin))
	for i := range perBin {
		order[i], dist[i] = i, len(perBin)
		for _, c := range centres {
			dist[i] = min(dist[i], max(i-c, c-i))
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return dist[order[a]] < dist[order[b]] })
	kept := 0
	for _, i := range order {
		if kept+perBin[i] > budget {
			break
		}
		kept += perBin[i]
		exact[i] = true
	}
	return exact
}

// binRanges are the runs of true in exact.
func binRanges(exact []bool) []BinRange {
	var out []BinRange
	for i := 0; i < len(exact); i++ {
		if !exact[i] {
			continue
		}
		j := i
		for j < len(exact) && exact[j] {
			j++
		}
		out = append(out, BinRange{From: i, To: j})
		i = j
	}
	return out
}

// violatingOps are the operation ids the violations name as evidence,
// with the invariant each shows first.
func violatingOps(vs []runner.Violation) map[uint64]string {
	out := map[uint64]string{}
	for _, v := range vs {
		for _, e := range v.Evidence {
			if _, ok := out[e.Op]; !ok {
				out[e.Op] = string(v.Invariant)
			}
		}
	}
	return out
}

// stackOps gives each operation (sorted by FromNs) a row by greedy
// interval packing and returns the rows used; operations beyond rowsMax
// rows share the last one.
func stackOps(ops []Op, rowsMax int) int {
	var free []int64 // free[r]: the end of the last operation on row r
	for i := range ops {
		ops[i].Row = packRow(&free, ops[i].FromNs, ops[i].ToNs, rowsMax)
	}
	return max(len(free), 1)
}

// packRow is one step of greedy interval packing: the first of the rows
// (*free holds each one's end) free at fromNs, a new one while fewer than
// rowsMax exist, else the last; that row then ends at toNs (at least
// fromNs+1, so an instant still takes its place).
func packRow(free *[]int64, fromNs, toNs int64, rowsMax int) int {
	f := *free
	r := 0
	for r < len(f) && f[r] > fromNs {
		r++
	}
	if r == len(f) {
		if r < rowsMax {
			f = append(f, 0)
		} else {
			r = rowsMax - 1
		}
	}
	f[r] = max(f[r], toNs, fromNs+1)
	*free = f
	return r
}
