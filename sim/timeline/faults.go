package timeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/world"
)

// Fault is one fault the run applied, named as the page names it.
type Fault struct {
	Kind string
	// AtNs is when it struck; EndNs when its condition ended (AtNs for a
	// moment).
	AtNs, EndNs int64
	// Label says it in words, times in seconds and nodes by their rows'
	// names: "kill broker 2 at 12.345 s for 0.814 s (torn writes)".
	Label string
	// Plan is the plan's line for it (nodes by world id, times in ns),
	// and PlanIndex its place among the plan's faults, from 1.
	Plan      string
	PlanIndex int
	// Lanes are the process lanes it is drawn on (numbering's lane order).
	Lanes []int
	// Planned is set when the trace was cut before it: its time is the
	// plan's and it is not known to have struck.
	Planned bool
}

// appliedFault is a plan fault as the world applied it: the i-th fault
// event of the trace is the plan's i-th fault (the world schedules them in
// plan order and traces each once, with the node a role resolved to, or
// -1 when the role had no holder); faults after heal are not applied.
type appliedFault struct {
	f       faultplan.FaultEvent
	index   int // in the plan's faults
	atNs    int64
	skipped bool
	planned bool
}

// appliedFaults pairs the trace's fault events with the plan's faults
// and finds the heal. With no trace it takes the plan's times; when the
// trace was cut at its cap, the plan's later faults follow as planned
// (those aimed at a role, whose holder is unknown, are left out).
func appliedFaults(p *faultplan.Plan, trace []world.TraceEvent, truncated bool, endNs int64) (faults []appliedFault, healNs int64) {
	healNs = endNs
	if p == nil {
		return nil, healNs
	}
	i := 0
	for _, e := range trace {
		switch {
		case e.Kind == world.EvHeal && healNs == endNs:
			healNs = e.AtNs
		case e.Kind == world.EvFault && i < len(p.Faults):
			f := p.Faults[i]
			i++
			a := appliedFault{f: f, index: i - 1, atNs: e.AtNs, skipped: e.Node < 0 && f.Role != ""}
			if f.Role != "" && e.Node >= 0 {
				a.f.Node = int(e.Node)
			}
			faults = append(faults, a)
		}
	}
	if len(trace) > 0 && !truncated {
		return faults, healNs
	}
	if healNs == endNs { // no heal event: the runner heals when the fault phase ends
		healNs = min(p.DurationNs, endNs)
	}
	for j, f := range p.Faults[i:] {
		if f.AtNs <= p.DurationNs {
			faults = append(faults, appliedFault{f: f, index: i + j, atNs: f.AtNs, skipped: f.Role != "" && len(trace) > 0, planned: len(trace) > 0})
		}
	}
	return faults, healNs
}

// addFaults labels the applied faults and draws them by their shape
// (faultplan.FaultShape) on the lanes of the nodes they name: spans as bands
// and moments as marks (a span's down or paused time comes from the
// trace), cuts and settings as bands until undoneAt; cuts, clears and
// the faults that name no node (every link's settings, the operator's
// cluster-wide actions) also on the cluster-wide lane. It returns how
// many faults were left out past FaultsMax.
func addFaults(lanes []Lane, nb numbering, res *runner.Result, m *Model) (over int) {
	faults, healNs := appliedFaults(res.Plan, res.Trace, res.TraceTruncated, m.EndNs)
	for i, a := range faults {
		if a.skipped {
			continue
		}
		if len(m.Faults) == FaultsMax {
			over++
			continue
		}
		shape := a.f.Kind.Shape()
		end, exact := a.atNs, true
		if shape != faultplan.ShapeMoment && shape != faultplan.ShapeClear {
			end, exact = undoneAt(faults, i, healNs)
		}
		ft := Fault{Kind: a.f.Kind.String(), AtNs: a.atNs, EndNs: end, Plan: a.f.String(), PlanIndex: a.index + 1, Planned: a.planned}
		ft.Label = faultLabel(a.f, a.atNs, end, exact, nb)
		if a.planned {
			ft.Label += " (as planned: the trace was cut before it)"
		}
		bar := Bar{FromNs: a.atNs, ToNs: end, Fault: len(m.Faults) + 1, Label: ft.Label, Title: fmt.Sprintf("%s\n(the plan's fault %d)", ft.Label, ft.PlanIndex)}
		bar.Class, bar.Instant = faultClass(a.f), end == a.atNs
		var on []int
		for _, n := range a.f.Nodes() {
			if l := nb.lane(n); l >= 0 {
				on = append(on, l)
			}
		}
		if shape == faultplan.ShapeCut || shape == faultplan.ShapeClear || len(a.f.Nodes()) == 0 {
			on = append(on, nb.networkLane())
		}
		for _, l := range on {
			b := bar
			b.Row = faultRow(l, nb, &res.Options)
			lanes[l].Bars = append(lanes[l].Bars, b)
		}
		ft.Lanes = on
		m.Faults = append(m.Faults, ft)
	}
	return over
}

// FaultsMax caps the faults the page draws and lists (a 600 s run
// applies some 400). Overflow policy: later ones are left out and a
// note says so (the run's plan holds them all).
const FaultsMax = 2500

// faultClass styles a fault: net (cuts, link settings, clears), disk,
// clock, or fault (process spans and moments).
func faultClass(f faultplan.FaultEvent) string {
	switch shape := f.Kind.Shape(); {
	case shape == faultplan.ShapeCut || shape == faultplan.ShapeClear:
		return "net"
	case shape == faultplan.ShapeSetting && len(f.Nodes()) == 0:
		return "net"
	case strings.HasPrefix(f.Kind.String(), "clock"):
		return "clock"
	case shape == faultplan.ShapeSetting:
		return "disk"
	}
	return "fault"
}

// faultRow is the row of lane l that holds its fault marks and bands:
// below a broker's leadership rows (one per raft group: the metadata
// group and one per stream shard), the relay's second; the network
// lane's rows are stacked (row 0 asks for it).
func faultRow(l int, nb numbering, o *runner.Options) int {
	switch l {
	case nb.networkLane():
		return 0
	case nb.relayLane():
		return 1
	}
	return 1 + o.Streams*int(o.Shards) + 1
}

// undoneAt is when fault i's condition ends, by what the fault table
// exports (package faultplan keeps per-kind logic in its table): a span after
// dur_ns (a lasting kind, such as a membership change, even past the
// heal); a cut, or a setting of every link, at the next clearing fault
// (each restores the links); a setting at the next of its kind on the
// same nodes; else the heal. exact is false when the condition may have
// ended sooner than endNs: a clearing fault came between that may undo
// more than the network (calm does, healnet does not), or a span without
// a duration, which a later fault may end (its down or paused time is
// drawn from the trace).
func undoneAt(faults []appliedFault, i int, healNs int64) (endNs int64, exact bool) {
	f, at := faults[i].f, faults[i].atNs
	shape := f.Kind.Shape()
	switch {
	case shape == faultplan.ShapeSpan && f.DurNs > 0 && f.Kind.Lasting():
		return at + f.DurNs, true
	case shape == faultplan.ShapeSpan && f.DurNs > 0:
		return max(min(at+f.DurNs, healNs), at), true
	case shape == faultplan.ShapeSpan:
		return max(healNs, at), false
	}
	network := shape == faultplan.ShapeCut || len(f.Nodes()) == 0
	exact = true
	for _, g := range faults[i+1:] {
		switch {
		case g.atNs >= healNs:
			return max(healNs, at), exact
		case g.skipped:
		case g.f.Kind.Shape() == faultplan.ShapeClear && network:
			return g.atNs, true
		case g.f.Kind.Shape() == faultplan.ShapeClear:
			exact = false
		case shape == faultplan.ShapeSetting && g.f.Kind == f.Kind && slices.Equal(g.f.Nodes(), f.Nodes()):
			return g.atNs, exact
		}
	}
	return max(healNs, at), exact
}
