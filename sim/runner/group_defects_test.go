package runner

import (
	"testing"

	"github.com/felixsim/felixsim/properties"
)

// groupDefectCases: the consumer-group checks' planted bugs, each with the
// invariant that must name it and the seed budget that must catch it. The
// budgets are the largest seeds-to-detection measured (docs/performance.md,
// TestDetectionSweep) with some slack.
var groupDefectCases = []checkerDefectCase{
	// Every ack but the oldest lease's is forgotten: concurrent fetchers
	// ack out of order at once, and the forgotten records come back.
	{defect: "redeliver-acked", invariant: properties.InvariantGroupAckedNotRedelivered, faults: "none", seedsMax: 1},
	// An ack's row is left out of the store commit: a broker killed
	// before the group's next fetch restores an older position.
	{defect: "ack-not-persisted", invariant: properties.InvariantGroupPositionMonotonic, faults: "kill", gapNs: 1e9, seedsMax: 3},
	// Leases judged by each replica's own clock: replicas holding a lease
	// at quiesce disagree on its expiry.
	{defect: "lease-by-local-clock", invariant: properties.InvariantGroupStateAgreement, faults: "all", gapNs: 2e9, seedsMax: 8},
	// An ack ends every older lease: a record leased in a lost answer is
	// never handed out, which the drain after quiesce exposes.
	{defect: "ack-drops-older-leases", invariant: properties.InvariantGroupDeliversEveryRecord, faults: "all", gapNs: 2e9, seedsMax: 12},
	// An operator's retain keeps the newest records whatever the groups
	// have committed: the workload's group, leases in flight, is left
	// below the window (seen in-run at the step, and by the drain).
	{defect: "retain-ignores-groups", invariant: properties.InvariantGroupRecordsRetained, faults: "retain", seedsMax: 2},
	// A retain deletes the dropped records' outbox rows too: a relay
	// behind the groups (its broker killed under it) never delivers them.
	{defect: "retain-drops-outbox", invariant: properties.InvariantOutboxKeptUntilRelayed, faults: "retain,kill", gapNs: 3e8, seedsMax: 5},
}

// TestGroupDefectsCaught: each consumer-group defect is reported under its
// invariant within its seed budget, and the catching seed passes without
// the defect, so the catch is the defect's, not the harness's.
func TestGroupDefectsCaught(t *testing.T) { assertCaughtUnderInvariant(t, groupDefectCases) }
