package runner

import (
	"fmt"
	"slices"

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

// withoutLiveStreams is h without its operations on the ephemeral
// streams live: they keep no log, so linearizability has nothing to judge
// them against (the ephemeral checks judge them). h itself when it has none.
func withoutLiveStreams(h *properties.History, live []properties.LiveStream) *properties.History {
	onLive := func(op *properties.HistoryOp) bool {
		return slices.Contains(live, properties.LiveStream{Namespace: op.Scope.Namespace, Stream: op.Scope.Stream})
	}
	var out *properties.History
	for i := range h.Ops {
		switch {
		case out != nil && !onLive(&h.Ops[i]):
			out.Ops = append(out.Ops, h.Ops[i])
		case out == nil && onLive(&h.Ops[i]):
			out = &properties.History{Ops: make([]properties.HistoryOp, 0, len(h.Ops))}
			out.Ops = append(out.Ops, h.Ops[:i]...)
		}
	}
	if out == nil {
		return h
	}
	return out
}

// checkLinearizable records the per-scope linearizability verdicts (rep,
// over the history and the reference log): a violation for every illegal
// scope and the verdict counts in the result.
func (r *run) checkLinearizable(rep properties.LinearizableReport) {
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
