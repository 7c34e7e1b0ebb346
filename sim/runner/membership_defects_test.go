package runner

import (
	"testing"

	"github.com/felixsim/felixsim/properties"
)

// membershipDefectCases: the membership checks' planted bugs, each with
// the invariant that must name it and the seed budget that must catch it
// (docs/performance.md, "Detection", gives the sweeps behind
// the budgets).
var membershipDefectCases = []checkerDefectCase{
	// A learner that has merely answered the leader is promoted: a
	// replaced broker's new identity becomes a voter with an empty log.
	// The promotion check reads the abstract trace, which a plan with
	// membership faults turns on.
	{defect: "promote-before-caught-up", invariant: properties.InvariantPromotedCaughtUp, faults: "membership,diskreplace", seedsMax: 10},
	// A leader holds writes back while its new member catches up: a
	// replaced broker down for its disk's replacement stalls every group
	// that still has a connected majority of voters.
	{defect: "writes-wait-for-learner", invariant: properties.InvariantLivenessDuringChange, faults: "diskreplace", gapNs: 1e9, seedsMax: 6},
}

// TestMembershipDefectsCaught: each membership defect is reported under
// its invariant within its seed budget, and the catching seed passes
// without the defect, so the catch is the defect's, not the harness's.
func TestMembershipDefectsCaught(t *testing.T) { assertCaughtUnderInvariant(t, membershipDefectCases) }
