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

// addFaults draws the applied faults: network conditions on the network
// lane (partitions also on the brokers they cut), node faults on their
// broker's fault row. A condition lasts until the fault that undoes it,
// or the heal.
func addFaults(lanes []Lane, net *Lane, res *runner.Result, m *Model) {
	faults, healNs := appliedFaults(res.Plan, res.Trace, m.EndNs)
	faultRow := 1 + res.Options.Streams*int(res.Options.Shards) + 1
	brokers := len(lanes)
	onBroker := func(node int, b Bar) {
		if node >= 0 && node < brokers {
			b.Row = faultRow
			lanes[node].Bars = append(lanes[node].Bars, b)
		}
	}
	for i, a := range faults {
		if a.skipped {
			continue
		}
		f := a.f
		end := undoneAt(faults, i, healNs)
		label := f.Kind.String()
		bar := Bar{FromNs: a.atNs, ToNs: end, Label: label, Title: fmt.Sprintf("%s at %s until %s: %s", label, secs(a.atNs), secs(end), f)}
		switch f.Kind {
		case sim.FaultPartition, sim.FaultOneWay, sim.FaultIsolate, sim.FaultSplit, sim.FaultBridge:
			bar.Class = "net"
			net.Bars = append(net.Bars, bar)
			for _, n := range cutNodes(f, brokers) {
				onBroker(n, bar)
			}
		case sim.FaultLoss, sim.FaultDuplicate, sim.FaultReorder, sim.FaultLatency:
			bar.Class = "net"
			bar.Label = label + " " + fieldsOf(f)
			net.Bars = append(net.Bars, bar)
		case sim.FaultHealNet:
			net.Bars = append(net.Bars, Bar{FromNs: a.atNs, ToNs: a.atNs, Instant: true, Class: "net", Label: label, Title: bar.Title})
		case sim.FaultKill, sim.FaultPause, sim.FaultRestart, sim.FaultResume:
			// the down and paused spans come from the trace; mark the cause
			onBroker(f.Node, Bar{FromNs: a.atNs, ToNs: a.atNs, Instant: true, Class: "fault", Label: label, Title: fmt.Sprintf("%s at %s: %s", label, secs(a.atNs), f)})
		case sim.FaultClockJump, sim.FaultCorrupt:
			onBroker(f.Node, Bar{FromNs: a.atNs, ToNs: a.atNs, Instant: true, Class: "clock", Label: label + " " + fieldsOf(f),
				Title: fmt.Sprintf("%s at %s: %s", label, secs(a.atNs), f)})
		case sim.FaultClockDrift, sim.FaultFsyncErr, sim.FaultReadErr, sim.FaultDiskLatency:
			bar.Class = "disk"
			bar.Label = label + " " + fieldsOf(f)
			onBroker(f.Node, bar)
		}
	}
}

// undoneAt is when fault i's condition ends: the next healnet for a
// network cut, the next fault of the same kind on the same target for a
// setting, else the heal.
func undoneAt(faults []appliedFault, i int, healNs int64) int64 {
	f := faults[i].f
	for _, g := range faults[i+1:] {
		if g.skipped {
			continue
		}
		switch f.Kind {
		case sim.FaultPartition, sim.FaultOneWay, sim.FaultIsolate, sim.FaultSplit, sim.FaultBridge:
			if g.f.Kind == sim.FaultHealNet {
				return g.atNs
			}
		case sim.FaultLoss, sim.FaultDuplicate, sim.FaultReorder, sim.FaultLatency:
			if g.f.Kind == f.Kind {
				return g.atNs
			}
		default:
			if g.f.Kind == f.Kind && g.f.Node == f.Node {
				return g.atNs
			}
		}
	}
	return max(healNs, faults[i].atNs)
}

// cutNodes are the brokers a network cut touches.
func cutNodes(f sim.FaultEvent, brokers int) []int {
	switch f.Kind {
	case sim.FaultPartition, sim.FaultOneWay:
		return []int{f.Node, f.Peer}
	case sim.FaultIsolate, sim.FaultBridge:
		return []int{f.Node}
	case sim.FaultSplit:
		var out []int
		for n := 0; n < brokers; n++ {
			if f.Mask&(1<<uint(n)) != 0 {
				out = append(out, n)
			}
		}
		return out
	}
	return nil
}

// fieldsOf is a fault's fields as the plan prints them, without its time
// and kind (e.g. "node=1 jump_ns=-300").
func fieldsOf(f sim.FaultEvent) string {
	_, rest, _ := strings.Cut(f.String(), " kind="+f.Kind.String())
	return strings.TrimSpace(rest)
}
