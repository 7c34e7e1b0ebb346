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
	c.Actions[coverageKey(s, action)]++
}

// coverageKey names what note counts: Persist and Commit steps by kind and
// action ("Persist:Propose"), Apply steps by action and outcome
// ("Apply:written"), the rest by action. The names a trace takes at
// nearly every step are built once here, not per step.
func coverageKey(s *modeltrace.Step, action string) string {
	switch s.Kind {
	case modeltrace.Persist, modeltrace.Commit:
		for _, k := range stepCoverageKeys {
			if k.kind == s.Kind && k.action == action {
				return k.key
			}
		}
		return s.Kind.String() + ":" + action
	case modeltrace.Apply:
		if action == "Apply" && int(s.Outcome) < len(applyCoverageKeys) {
			return applyCoverageKeys[s.Outcome]
		}
		return action + ":" + s.Outcome.String()
	}
	return action
}

// stepCoverageKey is a Persist or Commit step's name in the counts.
type stepCoverageKey struct {
	kind        modeltrace.Kind
	action, key string
}

// stepCoverageKeys are the names of the actions persist and commit take.
var stepCoverageKeys = func() []stepCoverageKey {
	var ks []stepCoverageKey
	for _, k := range []struct {
		kind   modeltrace.Kind
		action string
	}{{modeltrace.Persist, "Propose"}, {modeltrace.Persist, "Replicate"}, {modeltrace.Commit, "AdvanceCommit"}, {modeltrace.Commit, "Replicate"}} {
		ks = append(ks, stepCoverageKey{k.kind, k.action, k.kind.String() + ":" + k.action})
	}
	return ks
}()

// applyCoverageKeys[o] is an Apply step's name in the counts for outcome o.
var applyCoverageKeys = func() (ks [4]string) {
	for o := range ks {
		ks[o] = "Apply:" + modeltrace.Outcome(o).String()
	}
	return ks
}()
