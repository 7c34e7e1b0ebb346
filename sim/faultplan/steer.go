package faultplan

import (
	"fmt"
	"slices"
	"strings"
)

// Steering arms: the ways a steered sweep may draw a seed's plan, so that
// it can weight the ways that found model states its earlier seeds had not
// (sim/sweep, steer.go). An arm decides only how the plan is drawn: how
// many scopes arrive during the fault phase (a workload parameter the
// plan records), what share of the drawn faults is moved next to an
// arrival (the plan records the moved times), and which fault kinds the
// swarm keeps (the plan records the faults). So a saved plan replays
// without its arm, and `felixsim run --seed N --steer ARM` draws it again.

// SteerArm is one way of drawing a plan.
type SteerArm struct {
	// Name is the arm's name on the command line (--steer).
	Name string
	// Arrivals is how many scopes get their first writes during the fault
	// phase (workload.Config.Arrivals).
	Arrivals int
	// AnchorPpm is the share, in parts per million, of drawn faults moved
	// to strike just after an arrival (Knobs.AnchorPpm).
	AnchorPpm int64
	// AimLeader aims anchored faults at the leader (Knobs.AnchorRole) and
	// AnchorDurMaxNs cuts their spans (Knobs.AnchorDurMaxNs).
	AimLeader      bool
	AnchorDurMaxNs int64
	// FaultsPerGap, above 1, draws that many times the run's faults (the
	// mean gap between drawn faults divided by it), so that more arrivals
	// meet an anchored fault.
	FaultsPerGap int64
	// Focus, when set, names the only kinds of the run's faults the swarm
	// picks its subset from (all of them when it names none allowed).
	Focus []string
}

// SteerNone is the arm of an unsteered run: its plan is drawn as always.
const SteerNone = "none"

// steerArms are the arms, in a fixed order (a steered sweep indexes
// them). Arrivals put first writes under faults; the others add ways for
// a fault to meet them. Measured over seeds 1..100 of 20 s (tla/README.md,
// "Model coverage"): arrivals visit 190 of the model's 718 projected
// states, anchor 181, anchor-net 182, leader-bounce 162, leader-storm and
// net-storm 186 each (unsteered seeds 1..200: 126). Each finds states the
// others miss: leader-storm 25 that seeds 1..200 of arrivals do not, and
// net-storm 6 more.
var steerArms = []SteerArm{
	{Name: SteerNone},
	{Name: "arrivals", Arrivals: steerArrivals},
	{Name: "anchor", Arrivals: steerArrivals, AnchorPpm: 500_000},
	{Name: "leader-bounce", Arrivals: steerArrivals, AnchorPpm: 800_000, AimLeader: true, AnchorDurMaxNs: 300 * msNs,
		Focus: []string{"kill", "pause", "isolate", "clockjump"}},
	{Name: "leader-storm", Arrivals: steerArrivals, AnchorPpm: 900_000, AimLeader: true, AnchorDurMaxNs: 300 * msNs, FaultsPerGap: 4,
		Focus: []string{"kill", "pause", "isolate"}},
	{Name: "anchor-net", Arrivals: steerArrivals, AnchorPpm: 700_000,
		Focus: []string{"partition", "oneway", "isolate", "split", "bridge", "loss", "latency", "reorder"}},
	{Name: "net-storm", Arrivals: steerArrivals, AnchorPpm: 900_000, FaultsPerGap: 4,
		Focus: []string{"partition", "oneway", "isolate", "split", "bridge", "loss", "latency", "reorder"}},
}

// steerArrivals is how many scopes a steering arm brings in (the
// workload's ArrivalsMax).
const steerArrivals = 56

// SteerArms returns the arms, in the order a steered sweep indexes them.
func SteerArms() []SteerArm {
	out := make([]SteerArm, len(steerArms))
	copy(out, steerArms)
	return out
}

// SteerArmNames lists the arms' names, in order.
func SteerArmNames() []string {
	var names []string
	for _, a := range steerArms {
		names = append(names, a.Name)
	}
	return names
}

// SteerArmNamed returns the arm called name, or an error naming the arms.
func SteerArmNamed(name string) (SteerArm, error) {
	for _, a := range steerArms {
		if a.Name == name {
			return a, nil
		}
	}
	return SteerArm{}, fmt.Errorf("steering arm %q refused: not one of %s", name, strings.Join(SteerArmNames(), ", "))
}

// focusKinds keeps the kinds focus names (all kinds when focus is empty
// or keeps none of them).
func focusKinds(kinds []FaultKind, focus []string) []FaultKind {
	if len(focus) == 0 {
		return kinds
	}
	var out []FaultKind
	for _, k := range kinds {
		if slices.Contains(focus, k.String()) {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return kinds
	}
	return out
}
