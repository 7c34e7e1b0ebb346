package runner

import (
	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
)

// InRunChecker is the run's in-run checks (every applied record, durable
// round and boot) for a caller that builds its own cluster, such as the
// scenario runner: pass Observer as the cluster's node.Observer, Bind the
// cluster once built, and read Found whenever a verdict is wanted.
type InRunChecker struct {
	ir      *inRun
	leaders *leaderWatch
}

// NewInRunChecker returns a checker for a cluster of brokers brokers.
func NewInRunChecker(brokers int) *InRunChecker { return &InRunChecker{ir: newInRun(brokers)} }

// Observer is what the cluster's brokers report to.
func (k *InRunChecker) Observer() node.Observer { return k.ir }

// Bind tells the checker the cluster it watches; call it before the
// cluster's world runs.
func (k *InRunChecker) Bind(c *cluster.Cluster) {
	k.ir.c = c
	if k.ir.gens != nil {
		k.ir.gens.watch(c, nil)
	}
	if k.leaders != nil {
		k.leaders.watch(c)
	}
}

// Leaders is a trace sink that keeps the ephemeral streams' leadership
// changes for EphemeralLiveComplete (LiveViolations); pass it in the
// cluster's trace before Bind.
func (k *InRunChecker) Leaders() modeltrace.Sink {
	if k.leaders == nil {
		k.leaders = &leaderWatch{}
	}
	return k.leaders
}

// LiveViolations judges h's live reads against the leadership changes
// Leaders kept.
func (k *InRunChecker) LiveViolations(h *properties.History) []Violation {
	if k.leaders == nil {
		return nil
	}
	if _, err := k.leaders.check(h); err != nil {
		return []Violation{newViolation(properties.InvariantEphemeralLiveComplete, err.Error())}
	}
	return nil
}

// Generations is a trace sink that, with the checker's observer, gathers
// every stream's writes for WriteInItsGeneration (GenerationViolations);
// pass it in the cluster's trace before Bind.
func (k *InRunChecker) Generations() modeltrace.Sink {
	if k.ir.gens == nil {
		k.ir.gens = &generationWatch{}
	}
	return k.ir.gens
}

// GenerationViolations judges the writes Generations gathered.
func (k *InRunChecker) GenerationViolations() []Violation {
	if k.ir.gens == nil {
		return nil
	}
	if _, err := k.ir.gens.check(); err != nil {
		return []Violation{newViolation(properties.InvariantWriteInItsGeneration, err.Error())}
	}
	return nil
}

// Retention is the retention steps the checker's brokers reported, for
// CheckCluster's model of retention (the same record, not a copy).
func (k *InRunChecker) Retention() *RetentionSteps { return &RetentionSteps{drops: k.ir.drops} }

// Found returns the violations seen so far, the first of each invariant
// with how often it recurred; unlike the run's own reading it may be
// called again and returns them again.
func (k *InRunChecker) Found() []Violation { return k.ir.counted() }
