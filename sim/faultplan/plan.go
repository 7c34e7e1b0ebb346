package faultplan

import (
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/sim/world"
)

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
	// Ops restricts workload clients to some of their operations (see
	// ClientOps), sorted by client; nil keeps the full workload.
	Ops []ClientOps
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

// Validate checks the plan on its own terms (ApplyPlan also checks it
// against the world's nodes); it names the first offending entry.
func (p *Plan) Validate() error {
	if p.Nodes < 1 || p.Nodes > world.NodesMax {
		return fmt.Errorf("sim: plan with %d nodes refused: need 1..%d", p.Nodes, world.NodesMax)
	}
	if p.DurationNs < 0 || p.DurationNs > DurationNsMax {
		return fmt.Errorf("sim: plan duration %d ns refused: want 0..%d", p.DurationNs, int64(DurationNsMax))
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
	if err := p.validateOps(); err != nil {
		return err
	}
	var prev int64
	for i, f := range p.Faults {
		if err := f.validate(p.Nodes); err != nil {
			return fmt.Errorf("fault %d of %d: %w", i+1, len(p.Faults), err)
		}
		if f.AtNs < prev {
			return fmt.Errorf("sim: fault %d of %d at %d ns refused: before the previous one at %d ns", i+1, len(p.Faults), f.AtNs, prev)
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

// sortFaults orders faults by time, keeping the order of equal times.
func sortFaults(fs []FaultEvent) {
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].AtNs < fs[j].AtNs })
}
