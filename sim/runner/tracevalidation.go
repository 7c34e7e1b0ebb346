package runner

import (
	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/tla"
)

// traceSinks is the run's trace sinks: the validator and an export, either
// nil when off.
type traceSinks struct {
	v      *tla.TraceValidator
	export modeltrace.Sink
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

// traceResult records the validation's outcome and, when the trace was
// rejected, a violation of TraceNotInModel (a step no action explains) or
// of the model's invariant the trace state broke.
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
		r.res.Violations = append(r.res.Violations, traceViolation(res.Rejection))
	}
}

// traceViolation is a rejected trace as a violation: of TraceNotInModel,
// or of the model's invariant the trace state broke.
func traceViolation(r *tla.TraceRejection) Violation {
	return Violation{Invariant: r.Violated(), Message: clip(r.Error())}
}

// TraceCheck validates the brokers' abstract trace against the model as a
// cluster runs outside a run (a scenario): a modeltrace.Sink for
// cluster.Config.Trace.
type TraceCheck struct{ v *tla.TraceValidator }

// NewTraceCheck validates the trace of a cluster of brokers brokers.
func NewTraceCheck(brokers int) *TraceCheck { return &TraceCheck{v: tla.NewTraceValidator(brokers)} }

// Step validates one step (modeltrace.Sink).
func (c *TraceCheck) Step(s *modeltrace.Step) { c.v.Step(s) }

// Violations returns the trace's rejection so far as a violation, none
// while the trace is valid.
func (c *TraceCheck) Violations() []Violation {
	if r := c.v.Result().Rejection; r != nil {
		return []Violation{traceViolation(r)}
	}
	return nil
}

// ModelStateCoverage compares projected states visited (sorted) with the
// mirror's reachable ones (the generated table, not a fresh exploration);
// withMissed lists those never visited.
func ModelStateCoverage(visited []tla.ProjectedState, withMissed bool) (tla.StateCoverage, error) {
	return tla.CompareStates(visited, tla.ReachableProjectedTable(), withMissed), nil
}
