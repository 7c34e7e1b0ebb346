package timeline

import (
	"fmt"

	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/verdict"
	"github.com/felixsim/felixsim/sim/world"
)

// Bar is one span (or, when Instant, one moment) on a process lane.
type Bar struct {
	Row          int
	FromNs, ToNs int64
	// Class styles the bar: leader, down, paused, fault, net, disk, clock.
	Class string
	Label string
	Title string // the hover text
	// Fault is the bar's fault, 1 + its index in Model.Faults (0: none).
	Fault   int
	Instant bool
}

// Lane is one process lane: a broker, the outbox relay, or the network.
type Lane struct {
	Name string
	Rows int
	Bars []Bar
}

// Model is everything the page shows.
type Model struct {
	Title string
	// Verdict is the run's, by the one rule (package verdict).
	Verdict verdict.Verdict
	EndNs   int64
	// Lanes are the process lanes: the brokers (broker N is lane N-1), the
	// outbox relay, the network.
	Lanes  []Lane
	Faults []Fault
	// Clients are the workload clients' lanes, by client number.
	Clients []ClientLane
	// BinNs is the width of the bins the operations are counted in, and
	// Exact the bins whose every operation is in its lane's Ops.
	BinNs    int64
	Exact    []BinRange
	Findings []Finding
	// Notes say what the page could not show (a truncated trace, say),
	// and which raft ids a replaced broker ran as.
	Notes []string
}

// LeaderBarsMax caps the leadership terms the page draws. Overflow
// policy: later ones are left out and a note says so.
const LeaderBarsMax = 8192

// Build makes the page's model from a run kept with its history, trace
// and leadership (artifact.Recording options).
func Build(res *runner.Result) *Model {
	m := &Model{Title: fmt.Sprintf("felixsim seed %d", res.Seed), Verdict: res.Verdict(), EndNs: max(res.SimNs, 1)}
	nb := newNumbering(res)
	names := nb.laneNames()
	lanes := make([]Lane, len(names))
	for i, n := range names {
		lanes[i].Name = n
	}
	unplaced, over := addLeadership(lanes, nb, res.Leadership)
	addProcessStates(lanes, nb, res.Trace, m.EndNs)
	faultsOver := addFaults(lanes, nb, res, m)
	for i := range lanes {
		lanes[i].Rows = stackFaults(lanes[i].Bars, faultRow(i, nb, &res.Options))
	}
	m.Lanes = lanes
	addOps(m, res.History, res.Violations, ExactOpsMax)
	m.Findings = findings(res.Violations, nb)
	m.Notes = notes(res, nb, unplaced, over, faultsOver)
	return m
}

// notes are what the page says it could not show, and the brokers'
// identities.
func notes(res *runner.Result, nb numbering, unplaced, over, faultsOver int) []string {
	var out []string
	if res.TraceTruncated {
		out = append(out, "the recorded trace was cut at its cap: later down and paused spans are not shown, later faults are shown as planned (those aimed at a role are left out)")
	}
	if res.LeadershipTruncated {
		out = append(out, "leadership terms were recorded up to their cap: later ones are not shown")
	}
	if faultsOver > 0 {
		out = append(out, fmt.Sprintf("the page draws the first %d faults: %d later ones are not shown (the plan lists them)", FaultsMax, faultsOver))
	}
	if over > 0 {
		out = append(out, fmt.Sprintf("the page draws the first %d leadership terms: %d later ones are not shown", LeaderBarsMax, over))
	}
	if unplaced > 0 {
		out = append(out, fmt.Sprintf("%d leadership terms of raft ids with no broker row (a replacement past the recorded ones) are not shown", unplaced))
	}
	if res.History == nil {
		out = append(out, "the run kept no history: no client operations are shown")
	}
	out = append(out, identities(res, nb)...)
	return out
}

// addLeadership puts each leadership term on its broker's lane, the
// raft id mapped to its broker slot; the row is the raft group (row 0 is
// the process state). It returns how many terms had no broker row, and
// how many were left out past LeaderBarsMax.
func addLeadership(lanes []Lane, nb numbering, spans []runner.LeaderSpan) (unplaced, over int) {
	for i, s := range spans {
		if i == LeaderBarsMax {
			return unplaced, len(spans) - i
		}
		b, ok := nb.slotOfRaftID(s.Broker)
		if !ok {
			unplaced++
			continue
		}
		lanes[b].Bars = append(lanes[b].Bars, Bar{Row: int(s.Group), FromNs: s.FromNs, ToNs: s.ToNs, Class: "leader",
			Label: fmt.Sprintf("g%d t%d", s.Group, s.Term),
			Title: fmt.Sprintf("%s leads group %d in term %d from %s to %s", nb.raftIDName(s.Broker), s.Group, s.Term, secs(s.FromNs), secs(s.ToNs))})
	}
	return unplaced, 0
}

// addProcessStates draws each broker's (and the relay's) down and paused
// spans from the trace's boot, kill, pause and resume events (row 0).
func addProcessStates(lanes []Lane, nb numbering, trace []world.TraceEvent, endNs int64) {
	downSince := make([]int64, len(lanes))
	pausedSince := make([]int64, len(lanes))
	for i := range pausedSince {
		downSince[i], pausedSince[i] = -1, -1
	}
	bar := func(b int, from, to int64, class, what string) {
		if to > from {
			lanes[b].Bars = append(lanes[b].Bars, Bar{FromNs: from, ToNs: to, Class: class, Label: what,
				Title: fmt.Sprintf("%s %s from %s to %s", lanes[b].Name, what, secs(from), secs(to))})
		}
	}
	for _, e := range trace {
		b := nb.lane(int(e.Node))
		if b < 0 {
			continue
		}
		switch e.Kind {
		case world.EvKill:
			if downSince[b] < 0 {
				downSince[b] = e.AtNs
			}
		case world.EvBoot:
			if downSince[b] >= 0 {
				bar(b, downSince[b], e.AtNs, "down", "down")
			}
			downSince[b] = -1
		case world.EvPause:
			pausedSince[b] = e.AtNs
		case world.EvResume:
			if pausedSince[b] >= 0 {
				bar(b, pausedSince[b], e.AtNs, "paused", "paused")
			}
			pausedSince[b] = -1
		}
	}
	for b := range lanes {
		if downSince[b] >= 0 {
			bar(b, downSince[b], endNs, "down", "down")
		}
		if pausedSince[b] >= 0 {
			bar(b, pausedSince[b], endNs, "paused", "paused")
		}
	}
}

// FaultRowsMax caps the rows a lane stacks overlapping faults into;
// faults beyond it share the last one.
const FaultRowsMax = 4

// stackFaults gives the fault bars of a lane (those with Fault set) rows
// from first on, overlapping ones on separate rows (at most
// FaultRowsMax), and returns the lane's row count.
func stackFaults(bars []Bar, first int) int {
	rows := first + 1
	var free []int64 // free[r]: the end of the last fault on row first+r
	for i := range bars {
		b := &bars[i]
		if b.Fault == 0 {
			rows = max(rows, b.Row+1)
			continue
		}
		b.Row = first + packRow(&free, b.FromNs, b.ToNs, FaultRowsMax)
		rows = max(rows, b.Row+1)
	}
	return rows
}
