package runner

import (
	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/tla"
)

// traceSinks is the run's trace sinks: the validator, an export and the
// promotion check, each nil when off, and the ledger the history checks
// read, always on.
type traceSinks struct {
	v          *tla.TraceValidator
	export     modeltrace.Sink
	ledger     *LedgerSink
	promotions *promotionCheck
	// gens gathers the administered stream's writes (WriteInItsGeneration).
	gens generationWatch
	// leaders keeps the ephemeral streams' leadership changes
	// (EphemeralLiveComplete).
	leaders leaderWatch
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
	t.gens.Step(s)
	t.leaders.Step(s)
	if t.promotions != nil {
		t.promotions.Step(s)
	}
}

// traceSink is the sink the brokers emit to. It is never nil: the
// history checks match landings to requests by the trace's Request and
// Apply steps (LedgerSink), so every run traces, validated or not. The
// promotion check reads the trace of a run that validates or exports it,
// or whose plan holds a lasting fault (a membership change, a replaced
// disk, a corrupt store the operator replaces: each moves a broker through
// a membership change).
func (r *run) traceSink(plan *faultplan.Plan) modeltrace.Sink {
	o := &r.opts
	r.trace = &traceSinks{export: o.TraceExport, ledger: NewLedgerSink(), rejectedNs: -1}
	if o.ledgerHeldMax > 0 {
		r.trace.ledger.spill.heldMax = o.ledgerHeldMax
	}
	if o.ValidateTrace || o.TraceExport != nil || mayChangeMembership(plan) {
		r.trace.promotions = newPromotionCheck()
	}
	if o.ValidateTrace {
		r.trace.v = tla.NewTraceValidator(o.Brokers)
	}
	return r.trace
}

// mayChangeMembership reports whether plan holds a lasting fault
// (faultplan.FaultKind.Lasting: the kinds whose damage a broker leaves through
// a membership change, or that change it outright).
func mayChangeMembership(plan *faultplan.Plan) bool {
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
		v := traceViolation(res.Rejection)
		if r.trace.rejectedNs >= 0 {
			v.AtNs, v.When = r.trace.rejectedNs, WhenDuring
		}
		r.res.Violations = append(r.res.Violations, v)
	}
}

// traceViolation is a rejected trace as a violation: of TraceNotInModel,
// or of the model's invariant the trace state broke.
func traceViolation(r *tla.TraceRejection) Violation {
	return newViolation(r.Violated(), r.Error())
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
// bound of each group shape they hold (for three members the generated
// table, not a fresh exploration); withMissed lists the three-member
// bound's states never visited.
func ModelStateCoverage(visited []tla.ProjectedState, withMissed bool) (tla.StateCoverage, error) {
	return tla.CompareStates(visited, withMissed), nil
}
