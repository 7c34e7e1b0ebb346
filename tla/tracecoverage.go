package tla

import "github.com/felixsim/felixsim/modeltrace"

// TraceCoverage counts the model actions a trace took.
type TraceCoverage struct {
	Actions map[string]int `json:"actions"`
}

func (c *TraceCoverage) note(s *modeltrace.Step, g *traceGroup) {
	if c.Actions == nil {
		c.Actions = map[string]int{}
	}
	c.Actions[s.Kind.String()]++
}
