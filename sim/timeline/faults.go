package timeline

import (
	"fmt"
	"strings"

	"github.com/felixsim/felixsim/sim"
	"github.com/felixsim/felixsim/sim/runner"
)

// appliedFault is a plan fault as the world applied it: the i-th fault
// event of the trace is the plan's i-th fault (the world schedules them in
// plan order and traces each once, with the node a role resolved to, or
// -1 when the role had no holder); faults after heal are not applied.
type appliedFault struct {
	f       sim.FaultEvent
	atNs    int64
	skipped bool
}

// appliedFaults pairs the trace's fault events with the plan's faults
// and finds the heal; with no trace it falls back to the plan's times.
func appliedFaults(p *sim.Plan, trace []sim.TraceEvent, endNs int64) (faults []appliedFault, healNs int64) {
	healNs = endNs
	if p == nil {
		return nil, healNs
	}
	if len(trace) == 0 {
		for _, f := range p.Faults {
			if f.AtNs <= p.DurationNs {
				faults = append(faults, appliedFault{f: f, atNs: f.AtNs})
			}
		}
		return faults, min(p.DurationNs, endNs)
	}
	i := 0
	for _, e := range trace {
		switch {
		case e.Kind == sim.EvHeal && healNs == endNs:
			healNs = e.AtNs
		case e.Kind == sim.EvFault && i < len(p.Faults):
			f := p.Faults[i]
			i++
			a := appliedFault{f: f, atNs: e.AtNs, skipped: e.Node < 0 && f.Role != ""}
			if f.Role != "" && e.Node >= 0 {
				a.f.Node = int(e.Node)
			}
			faults = append(faults, a)
		}
	}
	return faults, healNs
}

// addFaults draws the applied faults by their shape (sim.FaultShape):
// cuts on the network lane and on the brokers (and relay) they name,
// settings on the brokers they name (or the network lane for every link), moments and
// spans as marks on their brokers (a span's down or paused time comes
// from the trace). A condition lasts until the fault that ends it, or
// the heal.
func addFaults(lanes []Lane, nodes nodeLanes, net *Lane, res *runner.Result, m *Model) {
	faults, healNs := appliedFaults(res.Plan, res.Trace, m.EndNs)
	onBrokers := func(ns []int, b Bar) {
		for _, n := range ns {
			if l := nodes.lane(n); l >= 0 {
				b.Row = nodes.faultRow(l, &res.Options)
				lanes[l].Bars = append(lanes[l].Bars, b)
			}
		}
	}
	for i, a := range faults {
		if a.skipped {
			continue
		}
		f := a.f
		end := undoneAt(faults, i, healNs)
		label := strings.TrimSpace(f.Kind.String() + " " + fieldsOf(f))
		title := fmt.Sprintf("%s at %s: %s", f.Kind, secs(a.atNs), f)
		band := Bar{FromNs: a.atNs, ToNs: end, Label: label, Title: fmt.Sprintf("%s until %s: %s", f.Kind, secs(end), f)}
		mark := Bar{FromNs: a.atNs, ToNs: a.atNs, Instant: true, Label: label, Title: title}
		switch shape := f.Kind.Shape(); {
		case shape == sim.ShapeCut:
			band.Class = "net"
			net.Bars = append(net.Bars, band)
			onBrokers(f.Nodes(), band)
		case shape == sim.ShapeClear:
			mark.Class = "net"
			net.Bars = append(net.Bars, mark)
		case shape == sim.ShapeSetting && len(f.Nodes()) == 0:
			band.Class = "net"
			net.Bars = append(net.Bars, band)
		case shape == sim.ShapeSetting:
			band.Class = "disk"
			onBrokers(f.Nodes(), band)
		case shape == sim.ShapeSpan:
			mark.Class = "fault"
			onBrokers(f.Nodes(), mark)
		default:
			mark.Class = "clock"
			onBrokers(f.Nodes(), mark)
		}
	}
}

// undoneAt is when fault i's condition ends: the next clearing fault for
// a cut, the next fault of the same kind on the same nodes for a setting,
// dur_ns for a span, else the heal.
func undoneAt(faults []appliedFault, i int, healNs int64) int64 {
	f := faults[i].f
	if f.Kind.Shape() == sim.ShapeSpan && f.DurNs > 0 {
		return faults[i].atNs + f.DurNs
	}
	for _, g := range faults[i+1:] {
		switch {
		case g.skipped:
		case f.Kind.Shape() == sim.ShapeCut && g.f.Kind.Shape() == sim.ShapeClear:
			return g.atNs
		case f.Kind.Shape() == sim.ShapeSetting && g.f.Kind == f.Kind && sameNodes(g.f.Nodes(), f.Nodes()):
			return g.atNs
		}
	}
	return max(healNs, faults[i].atNs)
}

func sameNodes(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// fieldsOf is a fault's fields as the plan prints them, without its time
// and kind (e.g. "node=1 jump_ns=-300").
func fieldsOf(f sim.FaultEvent) string {
	_, rest, _ := strings.Cut(f.String(), " kind="+f.Kind.String())
	return strings.TrimSpace(rest)
}
