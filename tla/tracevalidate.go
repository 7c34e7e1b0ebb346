package tla

import (
	"fmt"
	"slices"
	"strings"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/properties"
)

// TraceNotInModel is the invariant a rejected trace violates: a step no
// action of the model explains.
const TraceNotInModel = properties.InvariantTraceNotInModel

// TraceValidator checks a broker trace step by step against the model's
// actions, per raft group; it is a modeltrace.Sink. After the first
// rejection it only counts steps.
type TraceValidator struct {
	brokers int
	groups  map[uint64]*traceGroup
	answers map[answerKey][]answerRec
	// reads are the state reads begun and not yet served or ended.
	reads map[readKey][]readBegun
	steps int
	// coverage counts the actions taken.
	coverage actionCounts
	// states tracks the projected model states visited (nil unless the
	// cluster has the projection's three brokers).
	states     *stateTracker
	rejection  *TraceRejection
	afterSteps int
	// pending is what the current step changed that the invariants read.
	pending stepEffects
	// keepIndexes is each new group's traceGroup.keepIndexes.
	keepIndexes uint64
}

// TraceRejection is the first step no action explained, or the first
// whose state breaks one of the model's invariants.
type TraceRejection struct {
	// Step is the step's number in the trace (from 1) and Text the step.
	Step int    `json:"step"`
	Text string `json:"text"`
	// Invariant is the model's invariant the state after the step breaks
	// (empty: no action explained the step, a TraceNotInModel).
	Invariant properties.InvariantName `json:"invariant,omitempty"`
	// Tried names the actions tried (the one taken, for an invariant) and
	// Reason why the last one refused (what breaks the invariant).
	Tried  []string `json:"tried"`
	Reason string   `json:"reason"`
	// State is the broker's variables before the step (after it, for an
	// invariant).
	State string `json:"state"`
}

// Violated names the invariant the rejection is a violation of:
// Invariant, or TraceNotInModel for a step no action explains.
func (r *TraceRejection) Violated() properties.InvariantName {
	if r.Invariant != "" {
		return r.Invariant
	}
	return TraceNotInModel
}

// Error renders the rejection as a violation of the invariant it names.
func (r *TraceRejection) Error() string {
	if r.Invariant != "" {
		return fmt.Sprintf("%s: trace step %d (%s, taken as %s) leaves a state that breaks the model's invariant: %s; state: %s",
			r.Invariant, r.Step, r.Text, strings.Join(r.Tried, ", "), r.Reason, r.State)
	}
	return fmt.Sprintf("%s: step %d (%s) is explained by no action of the model (tried %s): %s; state: %s",
		TraceNotInModel, r.Step, r.Text, strings.Join(r.Tried, ", "), r.Reason, r.State)
}

// TraceResult is a validation's outcome, as the run's JSON reports it.
type TraceResult struct {
	Steps     int             `json:"steps"`
	Valid     bool            `json:"valid"`
	Rejection *TraceRejection `json:"rejection,omitempty"`
}

// NewTraceValidator validates the trace of a cluster of brokers brokers.
func NewTraceValidator(brokers int) *TraceValidator {
	v := &TraceValidator{brokers: brokers, groups: map[uint64]*traceGroup{}, answers: map[answerKey][]answerRec{}, reads: map[readKey][]readBegun{}, keepIndexes: writeKeepIndexes}
	v.states = newStateTracker()
	return v
}

// VisitedStates returns the projected model states the trace visited
// (ReachableProjected's projection), sorted.
func (v *TraceValidator) VisitedStates() []ProjectedState {
	if v.states == nil {
		return nil
	}
	return sortedStates(v.states.visited)
}

// Result reports the steps validated and the first rejection, if any.
func (v *TraceValidator) Result() TraceResult {
	return TraceResult{Steps: v.steps, Valid: v.rejection == nil, Rejection: v.rejection}
}

// Coverage returns the actions the trace took.
func (v *TraceValidator) Coverage() TraceCoverage { return v.coverage.coverage() }

// Step validates one step (modeltrace.Sink).
func (v *TraceValidator) Step(s *modeltrace.Step) {
	if v.rejection != nil {
		v.afterSteps++
		return
	}
	v.steps++
	var g *traceGroup
	if s.Kind != modeltrace.Answer {
		g = v.groups[s.Group]
		if g == nil {
			g = newTraceGroup(s.Group, v.brokers)
			g.keepIndexes = v.keepIndexes
			v.groups[s.Group] = g
		}
	}
	v.pending = stepEffects{}
	tried, err := v.dispatch(g, s)
	if g != nil {
		defer g.prune()
	}
	if err == nil {
		v.coverage.note(s, tried[0])
		if in, br := v.invariantsAfter(g, s); br != nil {
			v.reject(in, s, tried, br.err.Error())
			v.rejection.Invariant = br.name
			return
		}
		if v.states != nil && g != nil && !s.Kind.Reads() && s.Kind != modeltrace.ReadStart {
			v.states.note(g, s)
		}
		return
	}
	v.reject(g, s, tried, err.Error())
}

// reject records step s as the trace's rejection.
func (v *TraceValidator) reject(g *traceGroup, s *modeltrace.Step, tried []string, reason string) {
	state := "answers of broker " + fmt.Sprint(s.Broker)
	if g != nil {
		state = g.describe(s.Broker)
	}
	v.rejection = &TraceRejection{Step: v.steps, Text: s.String(), Tried: slices.Clone(tried), Reason: reason, State: state}
}

// The action lists dispatch returns, shared by every step and never
// modified (a rejection keeps a copy), so that a step allocates none.
var (
	triedCrash         = []string{"Crash"}
	triedVote          = []string{"Vote"}
	triedTimeout       = []string{"Timeout"}
	triedPromote       = []string{"Promote"}
	triedPropose       = []string{"Propose"}
	triedReplicate     = []string{"Replicate"}
	triedPersist       = []string{"Replicate", "Propose"}
	triedCommit        = []string{"AdvanceCommit", "Replicate"}
	triedAdvanceCommit = []string{"AdvanceCommit"}
	triedApply         = []string{"Apply"}
	triedAnswer        = []string{"Answer"}
	triedSnapshot      = []string{"Snapshot"}
	triedReconfigure   = []string{"Reconfigure"}
	// The model's readers: StateGet(b, k) and SubscriberSees(b).
	triedStateGet       = []string{"StateGet"}
	triedSubscriberSees = []string{"SubscriberSees"}
)

// dispatch tries the actions that could explain the step; the state before
// the step is the one described on a rejection (no action changes state
// before all its checks pass).
func (v *TraceValidator) dispatch(g *traceGroup, s *modeltrace.Step) ([]string, error) {
	if s.Kind != modeltrace.Answer && s.Kind != modeltrace.Restart && !g.broker(s.Broker).up {
		return []string{s.Kind.String()}, fmt.Errorf("broker %d has not started", s.Broker)
	}
	switch s.Kind {
	case modeltrace.Restart:
		return triedCrash, v.restart(g, s)
	case modeltrace.Vote:
		return v.vote(g, s)
	case modeltrace.Promote:
		return triedPromote, v.promote(g, s)
	case modeltrace.Request:
		return triedPropose, v.request(g, s)
	case modeltrace.Persist:
		return v.persist(g, s)
	case modeltrace.Commit:
		return v.commit(g, s)
	case modeltrace.Apply:
		return triedApply, v.apply(g, s)
	case modeltrace.Answer:
		return triedAnswer, v.answer(s)
	case modeltrace.Snapshot:
		return triedSnapshot, v.snapshot(g, s)
	case modeltrace.ProposeConf:
		return triedReconfigure, v.proposeConf(g, s)
	case modeltrace.ApplyConf:
		return triedApply, v.applyConf(g, s)
	case modeltrace.StateRead, modeltrace.SubscriberRead:
		return v.read(g, s)
	case modeltrace.ReadStart:
		return v.dispatchRead(g, s)
	}
	return []string{"none"}, fmt.Errorf("unknown step kind %d", uint8(s.Kind))
}

// ValidateTrace validates a recorded trace of a cluster of brokers brokers.
func ValidateTrace(steps []modeltrace.Step, brokers int) TraceResult {
	v := NewTraceValidator(brokers)
	modeltrace.Replay(steps, v)
	return v.Result()
}
