package tla

import "github.com/felixsim/felixsim/modeltrace"

// TraceCoverage counts the model actions a validated trace took, by the
// action that explained each step: Persist as Propose or Replicate,
// Commit as AdvanceCommit or Replicate (a learned mark), Apply by outcome.
type TraceCoverage struct {
	Actions map[string]int `json:"actions"`
}

// coverageKey names what a step of kind k explained by action counts as:
// Persist and Commit steps by kind and action ("Persist:Propose"), Apply
// steps by action and outcome ("Apply:written"), the rest by action.
func coverageKey(k modeltrace.Kind, o modeltrace.Outcome, action string) string {
	switch k {
	case modeltrace.Persist, modeltrace.Commit:
		return k.String() + ":" + action
	case modeltrace.Apply:
		return action + ":" + o.String()
	}
	return action
}

// coverageSlot is a (step kind, Apply's outcome, action) the validator's
// dispatch gives; actionCounts counts these in an array, so that counting
// a step neither builds its name nor hashes it.
type coverageSlot struct {
	kind    modeltrace.Kind
	outcome modeltrace.Outcome
	action  string
}

// coverageSlots are the slots, named by dispatch's own action lists.
var coverageSlots = [...]coverageSlot{
	{modeltrace.Restart, 0, triedCrash[0]},
	{modeltrace.Vote, 0, triedVote[0]},
	{modeltrace.Vote, 0, triedTimeout[0]},
	{modeltrace.Promote, 0, triedPromote[0]},
	{modeltrace.Request, 0, triedPropose[0]},
	{modeltrace.Persist, 0, triedPropose[0]},
	{modeltrace.Persist, 0, triedReplicate[0]},
	{modeltrace.Commit, 0, triedAdvanceCommit[0]},
	{modeltrace.Commit, 0, triedReplicate[0]},
	{modeltrace.Apply, modeltrace.OutcomeNone, triedApply[0]},
	{modeltrace.Apply, modeltrace.OutcomeWritten, triedApply[0]},
	{modeltrace.Apply, modeltrace.OutcomeRefused, triedApply[0]},
	{modeltrace.Apply, modeltrace.OutcomeError, triedApply[0]},
	{modeltrace.Answer, 0, triedAnswer[0]},
	{modeltrace.Snapshot, 0, triedSnapshot[0]},
	{modeltrace.ProposeConf, 0, triedReconfigure[0]},
	{modeltrace.ApplyConf, 0, triedApply[0]},
	{modeltrace.StateRead, 0, triedStateGet[0]},
	{modeltrace.SubscriberRead, 0, triedSubscriberSees[0]},
	{modeltrace.ReadStart, 0, triedReadStart[0]},
}

// actionCounts counts the actions a trace took: those of coverageSlots
// by slot, any other by name.
type actionCounts struct {
	slots [len(coverageSlots)]int
	other map[string]int
}

// note counts step s, explained by action.
func (c *actionCounts) note(s *modeltrace.Step, action string) {
	o := modeltrace.Outcome(0)
	if s.Kind == modeltrace.Apply {
		o = s.Outcome
	}
	for i := range coverageSlots {
		if sl := &coverageSlots[i]; sl.kind == s.Kind && sl.outcome == o && sl.action == action {
			c.slots[i]++
			return
		}
	}
	if c.other == nil {
		c.other = map[string]int{}
	}
	c.other[coverageKey(s.Kind, o, action)]++
}

// coverage returns the counts by name (nil if nothing was counted).
func (c *actionCounts) coverage() TraceCoverage {
	var out TraceCoverage
	for i, n := range c.slots {
		if n == 0 {
			continue
		}
		if out.Actions == nil {
			out.Actions = map[string]int{}
		}
		sl := &coverageSlots[i]
		out.Actions[coverageKey(sl.kind, sl.outcome, sl.action)] += n
	}
	for k, n := range c.other { //det:ok builds a map; no order reaches output
		if out.Actions == nil {
			out.Actions = map[string]int{}
		}
		out.Actions[k] += n
	}
	return out
}
