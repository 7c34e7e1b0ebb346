package tla

import "github.com/felixsim/felixsim/modeltrace"

// TraceCoverage counts the model actions a validated trace took, by the
// action that explained each step: Persist as Propose or Replicate,
// Commit as AdvanceCommit or Replicate (a learned mark), Apply by outcome.
type TraceCoverage struct {
	Actions map[string]int `json:"actions"`
}

// note counts step s, explained by action.
func (c *TraceCoverage) note(s *modeltrace.Step, action string) {
	if c.Actions == nil {
		c.Actions = map[string]int{}
	}
	switch s.Kind {
	case modeltrace.Persist, modeltrace.Commit:
		action = s.Kind.String() + ":" + action
	case modeltrace.Apply:
		action += ":" + s.Outcome.String()
	}
	c.Actions[action]++
}
