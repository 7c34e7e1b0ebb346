package timeline

import (
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim"
	"github.com/felixsim/felixsim/sim/runner"
)

// Bar is one span (or, when Instant, one moment) on a lane.
type Bar struct {
	Row          int
	FromNs, ToNs int64
	// Class styles the bar: leader, down, paused, fault, net, disk, clock,
	// op-ok, op-refused, op-failed, op-unknown, op-pending, violating.
	Class   string
	Label   string
	Title   string // the hover text
	ID      string // an anchor, for violating operations
	Instant bool
}

// Lane is one horizontal track: a broker, the network, or a client.
type Lane struct {
	Name string
	Rows int
	Bars []Bar
}

// Finding is one violated invariant with its explanation and evidence.
type Finding struct {
	Invariant string
	Message   string
	Evidence  []runner.Evidence
}

// Model is everything the page shows.
type Model struct {
	Title    string
	Verdict  string
	EndNs    int64
	Lanes    []Lane
	Findings []Finding
	// Marks are vertical guides across every lane at the violating
	// operations' invocations, so a thin bar is found at a glance.
	Marks []Mark
	// Notes say what the page could not show (a truncated trace, say).
	Notes []string
}

// Mark is a labelled moment across the whole plot.
type Mark struct {
	AtNs  int64
	Label string
}

// findings names each violated invariant once, in first-failure order:
// its first message (with how many more findings it had) and the
// evidence of its first finding that has any.
func findings(vs []runner.Violation) []Finding {
	var out []Finding
	index := map[properties.InvariantName]int{}
	more := map[properties.InvariantName]int{}
	for _, v := range vs {
		i, ok := index[v.Invariant]
		if !ok {
			index[v.Invariant] = len(out)
			out = append(out, Finding{Invariant: string(v.Invariant), Message: v.Message, Evidence: v.Evidence})
			continue
		}
		more[v.Invariant]++
		if len(out[i].Evidence) == 0 {
			out[i].Evidence = v.Evidence
		}
	}
	for i := range out {
		if n := more[properties.InvariantName(out[i].Invariant)]; n > 0 {
			out[i].Message += fmt.Sprintf(" (and %d more finding(s) of %s)", n, out[i].Invariant)
		}
	}
	return out
}

// OpRowsMax caps the rows a client lane stacks overlapping operations
// into; operations beyond it share the last row.
const OpRowsMax = 8

// Build makes the page's model from a run kept with its history, trace
// and leadership (artifact.Recording options).
func Build(res *runner.Result) *Model {
	m := &Model{Title: fmt.Sprintf("felixsim seed %d", res.Seed), Verdict: verdict(res), EndNs: max(res.SimNs, 1)}
	brokers := res.Options.Brokers
	lanes := make([]Lane, brokers+1)
	for b := range brokers {
		lanes[b].Name = fmt.Sprintf("broker %d", b+1)
	}
	lanes[brokers].Name = RelayLane
	nodes := nodeLanes{brokers: brokers, relay: runner.WorldNodes(res.Options) - 1}
	addLeadership(lanes, res.Leadership)
	addProcessStates(lanes, nodes, res.Trace, m.EndNs)
	net := Lane{Name: "network"}
	addFaults(lanes, nodes, &net, res, m)
	for i := range lanes {
		lanes[i].Rows = stack(lanes[i].Bars, nodes.faultRow(i, &res.Options)+1)
	}
	net.Rows = stack(net.Bars, OpRowsMax)
	m.Lanes = append(append(m.Lanes, lanes...), net)
	bad := violatingOps(res.Violations)
	m.Lanes = append(m.Lanes, clientLanes(res.History, bad, m.EndNs)...)
	m.Findings = findings(res.Violations)
	for _, f := range m.Findings {
		for _, e := range f.Evidence {
			m.Marks = append(m.Marks, Mark{AtNs: e.InvokeNs, Label: fmt.Sprintf("op %d", e.Op)})
		}
	}
	if res.TraceTruncated {
		m.Notes = append(m.Notes, "the recorded trace was truncated at its cap: faults and process states after it are not shown")
	}
	if res.LeadershipTruncated {
		m.Notes = append(m.Notes, "leadership spans were truncated at their cap")
	}
	return m
}

func verdict(res *runner.Result) string {
	switch {
	case res.Crashed():
		return "CRASH"
	case !res.OK():
		return "FAIL"
	}
	return "PASS"
}

// addLeadership puts each leadership term on its broker's lane; the row
// is the raft group (row 0 is the process state).
func addLeadership(lanes []Lane, spans []runner.LeaderSpan) {
	for _, s := range spans {
		b := int(s.Broker) - 1
		if b < 0 || b >= len(lanes) {
			continue
		}
		lanes[b].Bars = append(lanes[b].Bars, Bar{Row: int(s.Group), FromNs: s.FromNs, ToNs: s.ToNs, Class: "leader",
			Label: fmt.Sprintf("g%d t%d", s.Group, s.Term),
			Title: fmt.Sprintf("broker %d leads group %d in term %d from %s to %s", s.Broker, s.Group, s.Term, secs(s.FromNs), secs(s.ToNs))})
	}
}

// addProcessStates draws each broker's down and paused spans from the
// trace's boot, kill, pause and resume events (row 0).
func addProcessStates(lanes []Lane, nodes nodeLanes, trace []sim.TraceEvent, endNs int64) {
	downSince := make([]int64, len(lanes))
	pausedSince := make([]int64, len(lanes))
	for i := range pausedSince {
		pausedSince[i] = -1
	}
	bar := func(b int, from, to int64, class, what string) {
		if to > from {
			lanes[b].Bars = append(lanes[b].Bars, Bar{FromNs: from, ToNs: to, Class: class, Label: what,
				Title: fmt.Sprintf("%s %s from %s to %s", lanes[b].Name, what, secs(from), secs(to))})
		}
	}
	for _, e := range trace {
		b := nodes.lane(int(e.Node))
		if b < 0 {
			continue
		}
		switch e.Kind {
		case sim.EvKill:
			downSince[b] = e.AtNs
		case sim.EvBoot:
			if downSince[b] >= 0 {
				bar(b, downSince[b], e.AtNs, "down", "down")
			}
			downSince[b] = -1
		case sim.EvPause:
			pausedSince[b] = e.AtNs
		case sim.EvResume:
			if pausedSince[b] >= 0 {
				bar(b, pausedSince[b], e.AtNs, "paused", "paused")
			}
			pausedSince[b] = -1
		}
	}
	for b := range lanes {
		if downSince[b] > 0 {
			bar(b, downSince[b], endNs, "down", "down")
		}
		if pausedSince[b] >= 0 {
			bar(b, pausedSince[b], endNs, "paused", "paused")
		}
	}
}

// RelayLane names the outbox relay's lane: its kills and restarts, and
// the faults that strike it.
const RelayLane = "outbox relay"

// nodeLanes maps the world's nodes to the process lanes: broker b (node
// b) to lane b, the outbox relay (the runner's last node) to the lane
// after the brokers; the clients and the liveness probe have none.
type nodeLanes struct{ brokers, relay int }

// lane is node's lane index, or -1.
func (n nodeLanes) lane(node int) int {
	switch {
	case node >= 0 && node < n.brokers:
		return node
	case node == n.relay:
		return n.brokers
	}
	return -1
}

// faultRow is the row of lane i that holds fault marks and bands: below
// a broker's leadership rows (one per stream shard), the relay's second.
func (n nodeLanes) faultRow(i int, o *runner.Options) int {
	if i == n.brokers {
		return 1
	}
	return 1 + o.Streams*int(o.Shards) + 1
}

// violatingOps are the operation ids the violations name as evidence,
// with the invariant each shows.
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

// clientLanes draws every operation on its client's lane, overlapping
// operations stacked into rows; a violating one is highlighted.
func clientLanes(h *properties.History, bad map[uint64]string, endNs int64) []Lane {
	if h == nil {
		return nil
	}
	byClient := map[int]*Lane{}
	var ids []int
	for i := range h.Ops {
		op := &h.Ops[i]
		l := byClient[op.Client]
		if l == nil {
			l = &Lane{Name: fmt.Sprintf("client %d", op.Client)}
			byClient[op.Client] = l
			ids = append(ids, op.Client)
		}
		l.Bars = append(l.Bars, opBar(op, bad, endNs))
	}
	sort.Ints(ids)
	out := make([]Lane, 0, len(ids))
	for _, id := range ids {
		l := byClient[id]
		l.Rows = stack(l.Bars, OpRowsMax)
		out = append(out, *l)
	}
	return out
}

func opBar(op *properties.HistoryOp, bad map[uint64]string, endNs int64) Bar {
	to := op.CompleteNs
	if op.Outcome == properties.OutcomePending {
		to = endNs
	}
	b := Bar{FromNs: op.InvokeNs, ToNs: to, Class: "op-" + op.Outcome.String(), Label: op.Kind.String(),
		Title: fmt.Sprintf("op %d: client %d %s on %s, %s to %s, %s", op.ID, op.Client, op.Kind, op.Scope, secs(op.InvokeNs), secs(to), op.Outcome)}
	if op.Offset != 0 {
		b.Title += fmt.Sprintf(" at offset %d", op.Offset)
	}
	if op.Error != "" {
		b.Title += ": " + op.Error
	}
	if inv, ok := bad[op.ID]; ok {
		b.Class, b.ID = "violating", fmt.Sprintf("op-%d", op.ID)
		b.Label = fmt.Sprintf("op %d %s", op.ID, op.Kind)
		b.Title = inv + " — " + b.Title
	}
	return b
}

// stack assigns rows to bars that have none (Row 0) by greedy interval
// packing, keeping the rows given; it returns the lane's row count.
// Bars beyond rowsMax rows share the last one.
func stack(bars []Bar, rowsMax int) int {
	rows := 1
	for _, b := range bars {
		rows = max(rows, b.Row+1)
	}
	free := []int64{} // free[r]: the end of the last stacked bar on row r
	stacked := false
	for i := range bars {
		b := &bars[i]
		if b.Row != 0 || b.Class == "down" || b.Class == "paused" || b.Class == "clock" || b.Class == "disk" {
			continue
		}
		stacked = true
		r := 0
		for r < len(free) && free[r] > b.FromNs {
			r++
		}
		if r == len(free) {
			if r < rowsMax {
				free = append(free, 0)
			} else {
				r = rowsMax - 1
			}
		}
		free[r] = max(free[r], b.ToNs, b.FromNs+1)
		b.Row = r
	}
	if stacked {
		rows = max(rows, len(free))
	}
	return rows
}

// secs renders simulated nanoseconds as seconds.
func secs(ns int64) string { return fmt.Sprintf("%.3fs", float64(ns)/1e9) }
