package runner

import (
	"fmt"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/tla"
)

// traceSinks is the run's trace sinks: the validator and an export, either
// nil when off.
type traceSinks struct {
	v      *tla.TraceValidator
	export modeltrace.Sink
	// c is the run's cluster, set once built; steps counts the steps
	// seen; cutAtNs and cutStep are when validation stopped at the first
	// broker replacement (0: it did not).
	c       *cluster.Cluster
	steps   int
	cutAtNs int64
	cutStep int
}

// Step passes a step to each sink that is on. The model has no membership
// change: from the first broker replacement or plan membership change
// (a broker demoted or promoted) on, steps are exported but no longer
// validated (the result says where validation stopped: unknown
// beyond it, not a pass).
func (t *traceSinks) Step(s *modeltrace.Step) {
	t.steps++
	if t.v != nil && t.cutStep == 0 && t.c != nil && (t.c.ReplacementsBegun() > 0 || t.c.MembershipChanges() > 0) {
		t.cutStep, t.cutAtNs = t.steps, t.c.World.NowNs()
	}
	if t.v != nil && t.cutStep == 0 {
		t.v.Step(s)
	}
	if t.export != nil {
		t.export.Step(s)
	}
}

// traceSink is the sink the brokers emit to, nil when the run neither
// validates nor exports its trace (emission then costs nothing).
func (r *run) traceSink() modeltrace.Sink {
	o := &r.opts
	if !o.ValidateTrace && o.TraceExport == nil {
		return nil
	}
	r.trace = &traceSinks{export: o.TraceExport}
	if o.ValidateTrace {
		r.trace.v = tla.NewTraceValidator(o.Brokers)
	}
	return r.trace
}

// traceResult records the validation's outcome and a TraceNotInModel
// violation when the trace was rejected.
func (r *run) traceResult() {
	if r.trace == nil || r.trace.v == nil {
		return
	}
	res := r.trace.v.Result()
	cov := r.trace.v.Coverage()
	r.res.TraceValidation, r.res.TraceCoverage = &res, &cov
	if r.trace.cutStep != 0 {
		r.res.TraceValidationCut = fmt.Sprintf("validated up to step %d (%d ns), where a broker replacement or membership change began: the model has no membership change, so the %d steps after it are unknown, not a pass",
			r.trace.cutStep-1, r.trace.cutAtNs, r.trace.steps-r.trace.cutStep+1)
	}
	if visited := r.trace.v.VisitedStates(); visited != nil {
		if c, err := ModelStateCoverage(visited, false); err == nil {
			r.res.ModelStates = &c
		}
	}
	if !res.Valid {
		r.res.Violations = append(r.res.Violations, Violation{Invariant: tla.TraceNotInModel, Message: clip(res.Rejection.Error())})
	}
}

// ModelStateCoverage compares projected states visited (sorted) with the
// mirror's reachable ones (the generated table, not a fresh exploration);
// withMissed lists those never visited.
func ModelStateCoverage(visited []tla.ProjectedState, withMissed bool) (tla.StateCoverage, error) {
	return tla.CompareStates(visited, tla.ReachableProjectedTable(), withMissed), nil
}
