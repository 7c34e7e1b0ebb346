package runner

import (
	"fmt"

	"github.com/felixsim/felixsim/properties"
)

// LinearizableCounts tallies the per-scope linearizability verdicts of a
// run. Unknown scopes (the search ran out of budget) and skipped ones
// (unobserved offsets lost to retention, or no replica's log to judge
// against) are neither a pass nor a violation: they are counted here and
// each is named with its reason.
type LinearizableCounts struct {
	OK      int `json:"ok"`
	Illegal int `json:"illegal"`
	Unknown int `json:"unknown"`
	Skipped int `json:"skipped"`
	// Unjudged names every unknown and skipped scope and why.
	Unjudged []UnjudgedScope `json:"unjudged,omitempty"`
}

// UnjudgedScope is a scope the linearizability check gave no verdict.
type UnjudgedScope struct {
	Scope   string `json:"scope"`
	Verdict string `json:"verdict"` // "unknown" or "skipped"
	Reason  string `json:"reason"`
}

// checkLinearizable runs the per-scope linearizability check over the
// history and the reference log, recording a violation for every illegal
// scope and the verdict counts in the result.
func (r *run) checkLinearizable(h *properties.History, ref *properties.ReplicaLog) {
	rep := properties.HistoryLinearizable(h, ref, r.opts.LinearizableStepsMax)
	r.res.Linearizable = LinearizableCounts{OK: rep.OK, Illegal: rep.Illegal, Unknown: rep.Unknown, Skipped: rep.Skipped}
	for _, s := range rep.Scopes {
		switch s.Verdict {
		case properties.LinearizableSkipped:
			r.res.Linearizable.Unjudged = append(r.res.Linearizable.Unjudged, UnjudgedScope{Scope: s.Scope.String(), Verdict: s.Verdict.String(), Reason: s.Detail})
		case properties.LinearizableUnknown:
			r.res.Linearizable.Unjudged = append(r.res.Linearizable.Unjudged, UnjudgedScope{Scope: s.Scope.String(), Verdict: s.Verdict.String(),
				Reason: fmt.Sprintf("the search spent its budget of %d model steps over %d operations", s.Steps, s.Ops)})
		}
	}
	r.violate(properties.InvariantLinearizable, rep.Err())
}
