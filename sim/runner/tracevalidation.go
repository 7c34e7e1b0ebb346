package runner

import (
	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/tla"
)

// traceSinks is the run's trace sinks: the validator and an export, either
// nil when off, and the ledger the history checks read, always on.
type traceSinks struct {
	v      *tla.TraceValidator
	export modeltrace.Sink
	ledger *LedgerSink
	// nowNs reads the world's clock (set once the world is built), and
	// rejectedNs is when the validator first rejected a step (-1 before).
	nowNs      func() int64
	rejectedNs int64
}

// Step passes a step to each sink that is on. Every step is validated,
// broker replacements and membership changes included: the model's
// configuration is the one each broker's applied membership changes give.
func (t *traceSinks) Step(s *modeltrace.Step) {
	if t.v != nil {
		t.v.Step(s)
		if t.rejectedNs < 0 && !t.v.Result().Valid && t.nowNs != nil {
			t.rejectedNs = t.nowNs()
		}
	}
	if t.export != nil {
		t.export.Step(s)
	}
	t.ledger.Step(s)
}

// traceSink is the sink the brokers emit to. It is never nil: the
// history checks match landings to requests by the trace's Request and
// Apply steps (LedgerSink), so every run traces, validated or not.
func (r *run) traceSink() modeltrace.Sink {
	o := &r.opts
	r.trace = &traceSinks{export: o.TraceExport, ledger: NewLedgerSink(), rejectedNs: -1}
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
	if visited := r.trace.v.VisitedStates(); visited != nil {
		if c, err := ModelStateCoverage(visited, false); err == nil {
			r.res.ModelStates = &c
		}
	}
	if !res.Valid {
		v := newViolation(tla.TraceNotInModel, res.Rejection.Error())
		if r.trace.rejectedNs >= 0 {
			v.AtNs, v.When = r.trace.rejectedNs, WhenDuring
		}
		r.res.Violations = append(r.res.Violations, v)
	}
}

// ModelStateCoverage compares projected states visited (sorted) with the
// mirror's reachable ones (the generated table, not a fresh exploration);
// withMissed lists those never visited.
func ModelStateCoverage(visited []tla.ProjectedState, withMissed bool) (tla.StateCoverage, error) {
	return tla.CompareStates(visited, tla.ReachableProjectedTable(), withMissed), nil
}
