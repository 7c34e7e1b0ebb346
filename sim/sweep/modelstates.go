package sweep

import (
	"fmt"
	"slices"
	"strings"
)

// Model-state coverage over a sweep: every run that validated its trace
// reports the projected model states it visited (`felixsim run --json`'s
// "model_states", tla/README.md "Model coverage"); the report holds their
// union and counts it against the bound of each group shape, which the
// caller's counter knows (the sweep does not import the model).

// addModelStates merges a run's visited states (any order) into the
// report's sorted union.
func (r *Report) addModelStates(states []uint64) {
	if states == nil {
		return
	}
	r.ModelStatesSeeds++
	for _, s := range states {
		if i, found := slices.BinarySearch(r.ModelStates, s); !found {
			r.ModelStates = slices.Insert(r.ModelStates, i, s)
		}
	}
}

// ModelStatesCounter counts visited states (sorted codes) against the
// bound of each group shape they hold: the bounds' states, how many of
// them were visited, and a line per shape for the summary.
type ModelStatesCounter func(states []uint64) (reachable, visited int, shapes []string)

// CountModelStates sets ModelStatesReachable and ModelStatesVisited by
// count, and the summary's shape lines; a nil counter counts nothing.
func (r *Report) CountModelStates(count ModelStatesCounter) {
	r.ModelStatesReachable, r.ModelStatesVisited, r.modelStateShapes = 0, 0, nil
	if count == nil || len(r.ModelStates) == 0 {
		return
	}
	r.ModelStatesReachable, r.ModelStatesVisited, r.modelStateShapes = count(r.ModelStates)
}

// writeModelStatesText writes the union's coverage and, for a steered
// sweep, each arm's seeds and first-found states.
func (r *Report) writeModelStatesText(b *strings.Builder) {
	if r.ModelStatesSeeds == 0 {
		return
	}
	if r.ModelStatesReachable > 0 {
		fmt.Fprintf(b, "model states: %d of the %d projected states a broker can reach by the model's account visited (%.1f%%), %d model gaps (visited, not in the model), over %d seeds\n",
			r.ModelStatesVisited, r.ModelStatesReachable, 100*float64(r.ModelStatesVisited)/float64(r.ModelStatesReachable),
			len(r.ModelStates)-r.ModelStatesVisited, r.ModelStatesSeeds)
		for _, l := range r.modelStateShapes {
			fmt.Fprintf(b, "  %s\n", l)
		}
	} else {
		fmt.Fprintf(b, "model states: %d projected states visited over %d seeds\n", len(r.ModelStates), r.ModelStatesSeeds)
	}
	if len(r.SteerArms) == 0 {
		return
	}
	fmt.Fprintf(b, "steering (rounds of %d seeds):", SteerRoundSeeds)
	for _, a := range r.SteerArms {
		fmt.Fprintf(b, " %s %d seeds %d new;", a.Arm, a.Seeds, a.NewStates)
	}
	b.WriteString("\n")
}

// mergeModelStates adds shard r's model states and steering arms into
// the merged report m: the states' union, the arms summed by position (a
// shard steers from its own seeds; the sums say what each arm found
// first within its shard).
func (m *Report) mergeModelStates(r *Report) error {
	seeds := m.ModelStatesSeeds
	m.addModelStates(r.ModelStates)
	m.ModelStatesSeeds = seeds + r.ModelStatesSeeds
	if len(r.SteerArms) == 0 {
		return nil
	}
	if len(m.SteerArms) == 0 {
		m.SteerArms = make([]ArmStats, len(r.SteerArms))
		for i, a := range r.SteerArms {
			m.SteerArms[i].Arm = a.Arm
		}
	}
	if len(m.SteerArms) != len(r.SteerArms) {
		return fmt.Errorf("%d steering arms where another shard has %d", len(r.SteerArms), len(m.SteerArms))
	}
	for i, a := range r.SteerArms {
		if a.Arm != m.SteerArms[i].Arm {
			return fmt.Errorf("steering arm %d is %q where another shard has %q", i, a.Arm, m.SteerArms[i].Arm)
		}
		m.SteerArms[i].Seeds += a.Seeds
		m.SteerArms[i].NewStates += a.NewStates
	}
	return nil
}
