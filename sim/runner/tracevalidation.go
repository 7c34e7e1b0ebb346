package runner

import (
	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/sim"
	"github.com/felixsim/felixsim/tla"
)

// traceSinks is the run's trace sinks: the validator, an export and the
// promotion check, each nil when off.
type traceSinks struct {
	v          *tla.TraceValidator
	export     modeltrace.Sink
	promotions *promotionCheck
}

// Step passes a step to each sink that is on. Every step is validated,
// broker replacements and membership changes included: the model's
// configuration is the one each broker's applied membership changes give.
func (t *traceSinks) Step(s *modeltrace.Step) {
	if t.v != nil {
		t.v.Step(s)
	}
	if t.export != nil {
		t.export.Step(s)
	}
	if t.promotions != nil {
		t.promotions.Step(s)
	}
}

// traceSink is the sink the brokers emit to, nil when the run neither
// validates nor exports its trace nor can change membership (emission then
// costs nothing). The promotion check reads every emitted trace; a plan
// with a lasting fault (a membership change, a replaced disk, a corrupt
// store the operator replaces: each moves a broker through a membership
// change) turns emission on for it. A replacement after a store corrupted
// some other way is judged when the trace is on for another reason, as
// the CLI's --validate-trace default has it.
func (r *run) traceSink(plan *sim.Plan) modeltrace.Sink {
	o := &r.opts
	if !o.ValidateTrace && o.TraceExport == nil && !mayChangeMembership(plan) {
		return nil
	}
	r.trace = &traceSinks{export: o.TraceExport, promotions: newPromotionCheck()}
	if o.ValidateTrace {
		r.trace.v = tla.NewTraceValidator(o.Brokers)
	}
	return r.trace
}

// mayChangeMembership reports whether plan holds a lasting fault
// (sim.FaultKind.Lasting: the kinds whose damage a broker leaves through
// a membership change, or that change it outright).
func mayChangeMembership(plan *sim.Plan) bool {
	for _, f := range plan.Faults {
		if f.Kind.Lasting() {
			return true
		}
	}
	return false
}

// promotionResult records the promotion check's counts and a
// PromotedCaughtUp violation for the first promotion it rejected.
func (r *run) promotionResult() {
	if r.trace == nil || r.trace.promotions == nil {
		return
	}
	pc := r.trace.promotions
	r.res.Promotions = &PromotionCounts{Judged: pc.judged, Unjudged: pc.unjudged, Failed: pc.failed}
	r.counts.AddN(coverage.PromotionJudged, uint64(pc.judged))
	if v := pc.violation(); v != nil {
		r.res.Violations = append(r.res.Violations, *v)
	}
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
