package runner

import "github.com/felixsim/felixsim/properties"

// LinearizableCounts tallies the per-scope linearizability verdicts of a
// run. Unknown scopes (the search ran out of budget) and skipped ones
// (unobserved offsets lost to retention) are neither a pass nor a
// violation: they are counted here.
type LinearizableCounts struct {
	OK      int `json:"ok"`
	Illegal int `json:"illegal"`
	Unknown int `json:"unknown"`
	Skipped int `json:"skipped"`
}

// checkLinearizable runs the per-scope linearizability check over the
// history and the reference log, recording a violation for every illegal
// scope and the verdict counts in the result.
func (r *run) checkLinearizable(h *properties.History, ref *properties.ReplicaLog) {
	rep := properties.HistoryLinearizable(h, ref, r.opts.LinearizableStepsMax)
	r.res.Linearizable = LinearizableCounts{OK: rep.OK, Illegal: rep.Illegal, Unknown: rep.Unknown, Skipped: rep.Skipped}
	r.violate(properties.InvariantLinearizable, rep.Err())
}
