package timeline

import (
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/runner"
)

// denseRun is a synthetic run as dense as a real one (a 60 s run holds
// about 12,000 operations over 61 s: some 200 a second): clients
// operations a second over durationNs, each taking 5-15 ms (an unknown
// one up to 1 s), outcomes mostly ok; the operations named in bad are
// the evidence of one violation. A fixed xorshift drives it.
func denseRun(durationNs int64, opsPerSecond, clients int, bad ...uint64) *runner.Result {
	x := uint64(88172645463325252)
	next := func(n uint64) uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x % n }
	h := &properties.History{}
	n := int(durationNs / s * int64(opsPerSecond))
	gapNs := s / int64(opsPerSecond)
	for i := 0; i < n; i++ {
		at := int64(i)*gapNs + int64(next(uint64(gapNs)))
		op := properties.HistoryOp{ID: uint64(i + 1), Client: int(next(uint64(clients))), Kind: properties.HistoryKind(1 + next(9)),
			Scope:    felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "order-events", Shard: uint32(next(4))},
			InvokeNs: at, CompleteNs: at + 5_000_000 + int64(next(10_000_000)), Outcome: properties.OutcomeOK, Offset: next(5000)}
		switch r := next(100); {
		case r < 5:
			op.Outcome = properties.OutcomeRefused
		case r < 7:
			op.Outcome = properties.OutcomeFailed
		case r < 10:
			op.Outcome, op.CompleteNs = properties.OutcomeUnknown, at+int64(next(uint64(s)))
		case i >= n-3:
			op.Outcome, op.CompleteNs = properties.OutcomePending, 0
		}
		h.Ops = append(h.Ops, op)
	}
	var ev []runner.Evidence
	for _, id := range bad {
		op := h.Ops[id-1]
		ev = append(ev, runner.Evidence{Op: id, Client: op.Client, Kind: op.Kind.String(), InvokeNs: op.InvokeNs, CompleteNs: op.CompleteNs})
	}
	res := &runner.Result{Options: runner.Options{Brokers: 3, Clients: clients, Streams: 1, Shards: 4}, Seed: 1, History: h, SimNs: durationNs + s}
	if len(ev) > 0 {
		res.Violations = []runner.Violation{{Invariant: "Linearizable", Message: "synthetic", Evidence: ev}}
	}
	return res
}

// TestBinsCountEveryOperation: per client and outcome, the bins sum to
// the history's own tally, for a run small enough to keep every
// operation one by one and for one that must aggregate.
func TestBinsCountEveryOperation(t *testing.T) {
	for _, res := range []*runner.Result{denseRun(10*s, 200, 4), denseRun(600*s, 200, 5, 7, 60_000, 119_000)} {
		m := Build(res)
		want := map[[2]int]int{}
		for _, op := range res.History.Ops {
			want[[2]int{op.Client, int(op.Outcome)}]++
		}
		got := map[[2]int]int{}
		total := 0
		for _, c := range m.Clients {
			for oc, bins := range c.Bins {
				if len(bins) != binCount(m.EndNs, m.BinNs) {
					t.Fatalf("%s has %d bins of outcome %d; want %d", c.Name, len(bins), oc, binCount(m.EndNs, m.BinNs))
				}
				for _, n := range bins {
					if n == 0 {
						continue
					}
					got[[2]int{c.Client, int(Outcomes[oc])}] += n
					total += n
				}
			}
		}
		if total != len(res.History.Ops) || len(got) != len(want) {
			t.Fatalf("bins count %d operations in %d classes; the history holds %d in %d", total, len(got), len(res.History.Ops), len(want))
		}
		for k, n := range want {
			if got[k] != n {
				t.Errorf("client %d outcome %s: bins count %d, history %d", k[0], properties.HistoryOutcome(k[1]), got[k], n)
			}
		}
		if binCount(m.EndNs, m.BinNs) > BinsMax {
			t.Errorf("%d bins; the cap is %d", binCount(m.EndNs, m.BinNs), BinsMax)
		}
	}
}

// TestAggregationKeepsViolatingOpsExact: in a 600 s run far over
// ExactOpsMax, every violating operation is kept one by one with its own
// times and row, and the operations kept are exactly those invoked in
// the exact bins (plus the violating ones), which lie around the
// violating operations.
func TestAggregationKeepsViolatingOpsExact(t *testing.T) {
	bad := []uint64{7, 60_000, 119_000}
	res := denseRun(600*s, 200, 5, bad...)
	m := Build(res)
	bins := binCount(m.EndNs, m.BinNs)
	exact := make([]bool, bins)
	for _, r := range m.Exact {
		for b := r.From; b < r.To; b++ {
			exact[b] = true
		}
	}
	kept := map[uint64]Op{}
	for _, c := range m.Clients {
		for _, o := range c.Ops {
			kept[o.ID] = o
		}
	}
	if len(kept) > ExactOpsMax+len(bad) || len(kept) < ExactOpsMax/2 {
		t.Fatalf("%d operations kept one by one; want at most %d and most of the budget used", len(kept), ExactOpsMax+len(bad))
	}
	for _, op := range res.History.Ops {
		o, ok := kept[op.ID]
		inExact := exact[binOf(op.InvokeNs, m.BinNs, bins)]
		isBad := op.ID == 7 || op.ID == 60_000 || op.ID == 119_000
		if ok != (inExact || isBad) {
			t.Fatalf("op %d (bin %d exact %v, violating %v) kept %v", op.ID, binOf(op.InvokeNs, m.BinNs, bins), inExact, isBad, ok)
		}
		if isBad && (o.FromNs != op.InvokeNs || o.ToNs != op.CompleteNs || o.Invariant != "Linearizable" || o.Detail == "") {
			t.Fatalf("violating op %d kept as %+v; want its own times and the invariant", op.ID, o)
		}
		if isBad && !inExact {
			t.Errorf("violating op %d's bin is not exact: the stretch around it should be", op.ID)
		}
	}
}

// TestExactBins: every bin when all fit; else grown from the centres,
// nearest first, stopping at the first bin that does not fit.
func TestExactBins(t *testing.T) {
	for _, c := range []struct {
		perBin  []int
		centres []int
		budget  int
		want    string
	}{
		{[]int{1, 2, 3}, nil, 6, "xxx"},
		{[]int{1, 2, 3, 4, 5}, []int{2}, 9, ".xxx."},
		{[]int{1, 2, 3, 4, 5}, []int{2}, 8, ".xx.."}, // 3, then 2 (nearer bins tie: lower first), then 4 does not fit
		{[]int{1, 2, 3, 4, 5}, nil, 3, "xx..."},
		{[]int{5, 1, 1, 1, 5}, []int{0, 4}, 10, "x...x"},
		{[]int{5, 1, 1, 1, 5}, []int{0, 4}, 11, "xx..x"},
	} {
		got := ""
		for _, e := range exactBins(c.perBin, c.centres, c.budget) {
			got += map[bool]string{true: "x", false: "."}[e]
		}
		if got != c.want {
			t.Errorf("exactBins(%v, %v, %d) = %s, want %s", c.perBin, c.centres, c.budget, got, c.want)
		}
	}
}

// TestBinWidth: the shortest 1-2-5 width that keeps the bins within
// BinsMax.
func TestBinWidth(t *testing.T) {
	for endNs, want := range map[int64]int64{1: 1, 11_487_000_000: 5_000_000, 61 * s: 50_000_000, 660 * s: 500_000_000, 2399: 1, 2400: 2} {
		if got := binWidth(endNs); got != want || binCount(endNs, got) > BinsMax {
			t.Errorf("binWidth(%d) = %d (%d bins), want %d", endNs, got, binCount(endNs, got), want)
		}
	}
}

// TestViolatingOpsKeptPastTheBudget: with no room for operations one by
// one, the violating ones are still kept, and only they.
func TestViolatingOpsKeptPastTheBudget(t *testing.T) {
	res := denseRun(10*s, 200, 4, 5, 1500)
	m := &Model{EndNs: res.SimNs}
	addOps(m, res.History, res.Violations, 0)
	var kept []uint64
	for _, c := range m.Clients {
		for _, o := range c.Ops {
			kept = append(kept, o.ID)
			if o.Invariant != "Linearizable" {
				t.Errorf("op %d kept one by one with no room and no violation", o.ID)
			}
		}
	}
	if len(kept) != 2 || len(m.Exact) != 0 {
		t.Fatalf("kept %v, exact bins %v; want ops 5 and 1500 only", kept, m.Exact)
	}
}
