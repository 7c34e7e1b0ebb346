package sim

import (
	"fmt"
	"sort"
	"strings"
)

// FaultKind names one kind of fault a plan can schedule; zero is invalid.
type FaultKind uint8

// Fault kinds. Their names are the plan file's vocabulary.
const (
	faultInvalid     FaultKind = iota
	FaultPartition             // cut Node <-> Peer both ways
	FaultOneWay                // cut Node -> Peer only
	FaultIsolate               // cut every link of Node
	FaultSplit                 // cut the nodes in Mask from the rest
	FaultBridge                // split Mask from the rest, Node keeps both sides
	FaultHealNet               // remove partitions, restore links
	FaultLoss                  // every link loses Value ppm of messages
	FaultDuplicate             // every link duplicates Value ppm of messages
	FaultReorder               // every link delays Value ppm of messages by up to DurNs extra
	FaultLatency               // every link's latency bound rises to Value ns
	FaultKill                  // kill Node (Value 1: torn writes); restart after DurNs if > 0
	FaultRestart               // boot Node if it is down
	FaultPause                 // pause Node; resume after DurNs if > 0
	FaultResume                // resume Node
	FaultClockJump             // move Node's clock by Value ns (either way)
	FaultClockDrift            // set Node's clock drift to Value ppm
	FaultFsyncErr              // Node's fsyncs fail with Value ppm
	FaultReadErr               // Node's reads fail with Value ppm
	FaultCorrupt               // flip a bit in one sector of Node's disk
	FaultDiskLatency           // Node's disk operations take up to Value ns
	faultKindCount
)

var faultKindNames = [...]string{"invalid", "partition", "oneway", "isolate", "split", "bridge", "healnet",
	"loss", "duplicate", "reorder", "latency", "kill", "restart", "pause", "resume",
	"clockjump", "clockdrift", "fsyncerr", "readerr", "corrupt", "disklatency"}

// String names the kind as plan files spell it.
func (k FaultKind) String() string {
	if k < faultKindCount {
		return faultKindNames[k]
	}
	return fmt.Sprintf("fault(%d)", uint8(k))
}

// ParseFaultKind reads a kind name.
func ParseFaultKind(s string) (FaultKind, error) {
	for k := FaultKind(1); k < faultKindCount; k++ {
		if faultKindNames[k] == s {
			return k, nil
		}
	}
	return faultInvalid, fmt.Errorf("sim: fault kind %q refused: not one of %s", s, strings.Join(faultKindNames[1:], ", "))
}

// AllFaultKinds lists every valid kind in order.
func AllFaultKinds() []FaultKind {
	out := make([]FaultKind, 0, faultKindCount-1)
	for k := FaultKind(1); k < faultKindCount; k++ {
		out = append(out, k)
	}
	return out
}

// targetsNode reports whether the kind acts on FaultEvent.Node.
func (k FaultKind) targetsNode() bool {
	switch k {
	case FaultSplit, FaultHealNet, FaultLoss, FaultDuplicate, FaultReorder, FaultLatency:
		return false
	}
	return true
}

// FaultEvent is one timed fault. Fields a kind does not use stay zero.
type FaultEvent struct {
	AtNs  int64
	Kind  FaultKind
	Node  int
	Peer  int
	Mask  uint64
	Value int64
	DurNs int64
	// Role, when set on a node-targeting fault, names the node by what it is
	// at apply time (e.g. "leader") instead of by Node: Config.ResolveRole
	// picks it then. The fault is skipped when the role has no holder.
	Role string
}

// Param is one named workload parameter.
type Param struct {
	Name  string
	Value int64
}

// Plan is a run's fault schedule and workload parameters, as data: it can be
// printed, saved, parsed back and replayed exactly.
type Plan struct {
	Seed       uint64
	Nodes      int
	DurationNs int64
	Workload   []Param      // sorted by name, names unique
	Faults     []FaultEvent // sorted by AtNs (ties keep their order)
}

// Param returns the workload parameter name, or def if the plan lacks it.
func (p *Plan) Param(name string, def int64) int64 {
	for _, q := range p.Workload {
		if q.Name == name {
			return q.Value
		}
	}
	return def
}

// Validate checks the plan on its own terms (World.ApplyPlan also checks it
// against the world's nodes); it names the first offending entry.
func (p *Plan) Validate() error {
	if p.Nodes < 1 || p.Nodes > NodesMax {
		return fmt.Errorf("sim: plan with %d nodes refused: need 1..%d", p.Nodes, NodesMax)
	}
	if p.DurationNs < 0 {
		return fmt.Errorf("sim: plan duration %d ns refused: negative", p.DurationNs)
	}
	for i := 1; i < len(p.Workload); i++ {
		if p.Workload[i-1].Name >= p.Workload[i].Name {
			return fmt.Errorf("sim: workload params %q, %q refused: names must be unique and sorted", p.Workload[i-1].Name, p.Workload[i].Name)
		}
	}
	for _, q := range p.Workload {
		if !validParamName(q.Name) {
			return fmt.Errorf("sim: workload param name %q refused: use [a-z0-9_]+", q.Name)
		}
	}
	var prev int64
	for i, f := range p.Faults {
		if err := f.validate(p.Nodes); err != nil {
			return fmt.Errorf("fault %d: %w", i, err)
		}
		if f.AtNs < prev {
			return fmt.Errorf("sim: fault %d at %d ns refused: before the previous one at %d ns", i, f.AtNs, prev)
		}
		prev = f.AtNs
	}
	return nil
}

func validParamName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func (f FaultEvent) validate(nodes int) error {
	switch {
	case f.Kind == faultInvalid || f.Kind >= faultKindCount:
		return fmt.Errorf("sim: fault kind %d refused: unknown", f.Kind)
	case f.AtNs < 0 || f.DurNs < 0:
		return fmt.Errorf("sim: %s at %d ns for %d ns refused: negative time", f.Kind, f.AtNs, f.DurNs)
	case f.Node < 0 || f.Node >= nodes || f.Peer < 0 || f.Peer >= nodes:
		return fmt.Errorf("sim: %s node=%d peer=%d refused: outside [0, %d)", f.Kind, f.Node, f.Peer, nodes)
	case nodes < 64 && f.Mask>>uint(nodes) != 0:
		return fmt.Errorf("sim: %s mask %#x refused: names nodes beyond %d", f.Kind, f.Mask, nodes)
	case f.Role != "" && (!validParamName(f.Role) || !f.Kind.targetsNode()):
		return fmt.Errorf("sim: %s role %q refused: a role needs a node-targeting kind and a name in [a-z0-9_]+", f.Kind, f.Role)
	}
	switch f.Kind {
	case FaultPartition, FaultOneWay:
		if f.Node == f.Peer && f.Role == "" {
			return fmt.Errorf("sim: %s between node %d and itself refused", f.Kind, f.Node)
		}
	case FaultLoss, FaultDuplicate, FaultReorder, FaultFsyncErr, FaultReadErr:
		if f.Value < 0 || f.Value > ppmScale {
			return fmt.Errorf("sim: %s of %d ppm refused: outside [0, 1e6]", f.Kind, f.Value)
		}
	case FaultLatency, FaultDiskLatency:
		if f.Value < 0 {
			return fmt.Errorf("sim: %s of %d ns refused: negative", f.Kind, f.Value)
		}
	case FaultClockDrift:
		if f.Value < -DriftPpmMax || f.Value > DriftPpmMax {
			return fmt.Errorf("sim: clock drift %d ppm refused: outside ±%d", f.Value, DriftPpmMax)
		}
	case FaultKill:
		if f.Value != 0 && f.Value != 1 {
			return fmt.Errorf("sim: kill value %d refused: 0 (lose unsynced) or 1 (torn)", f.Value)
		}
	}
	return nil
}

// sortFaults orders faults by time, keeping the order of equal times.
func sortFaults(fs []FaultEvent) {
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].AtNs < fs[j].AtNs })
}
