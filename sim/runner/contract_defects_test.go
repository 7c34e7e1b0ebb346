package runner

import (
	"testing"

	"github.com/felixsim/felixsim/properties"
)

// contractDefectCases: each client-contract check's planted bug, the
// invariant that must name it and the seed budget that must catch it
// (10 s runs, as every catch plan). Measured seeds-to-detection are in
// docs/performance.md (make detection).
var contractDefectCases = []checkerDefectCase{
	// The state machine leases a fetch's records for a thousandth of the
	// lease the answer reports: a record whose ack has not landed yet is
	// handed out again by the next fetch, long before the expiry its
	// consumer was told. Measured: caught on seeds 1-5 of 1..6.
	{defect: "lease-unit-slip", invariant: properties.InvariantGroupLeaseHonored, faults: "all", gapNs: 6e8, seedsMax: 4},
	// The client reads a copy's refusal (NotLeader after its redirects,
	// Unavailable, EphemeralStream: the live stream's commits meet it in
	// every run) as the write's failure. FailedWriteLeftNoTrace needs one
	// of the call's copies to land; this check needs none. Measured:
	// caught on seeds 1-3 of 1..3.
	{defect: "failed-on-copy-refusal", invariant: properties.InvariantFailedOnlyWhenCertain, faults: "all", gapNs: 6e8, seedsMax: 2},
	// A leader that steps down answers its pending fetches, acks and the
	// relay's trims NotLeader although it proposed them; the brokers'
	// trace shows the proposal. Measured: caught on 5 of seeds 1..8.
	{defect: "commands-not-leader-after-propose", invariant: properties.InvariantAnswersHonest, faults: "all", gapNs: 6e8, seedsMax: 5},
	// The broker serves an outbox read from the log's retained window:
	// a relay kept down while retain commands drop what it had not
	// relayed resumes past the outbox's start. OutboxKeptUntilRelayed
	// reports the same runs (the skipped events never come); this check
	// names the skip itself, and would report one the sink got late.
	// Measured: caught on 11 of seeds 1..16, at most 3 seeds from any
	// start.
	{defect: "outbox-read-from-window", invariant: properties.InvariantOutboxFromStart, faults: "retain,kill", gapNs: 3e8, seedsMax: 4},
	// A live read that finds less than a full batch queued answers
	// nothing and keeps the queue: an empty answer while publishes wait.
	// EphemeralLiveDelivery judges only what was read. Measured: caught
	// on each of seeds 1..12.
	{defect: "live-read-waits-for-batch", invariant: properties.InvariantEphemeralLiveComplete, faults: "all", gapNs: 6e8, seedsMax: 2},
	// Applying a write in a deleted stream, or in a generation other than
	// the one it was accepted in, does not refuse it: a probe write a
	// leader accepted just before it applied the delete's marker lands.
	// Clients cannot tell (the write was sent before the delete was
	// done); the brokers' own account can. Measured: caught on 15 of
	// seeds 1..24, at most 6 seeds from any start.
	{defect: "deleted-stream-takes-writes", invariant: properties.InvariantWriteInItsGeneration, faults: mustDefectFaults("deleted-stream-takes-writes"), gapNs: 6e8, seedsMax: 8},
}

// TestContractDefectsCaught: each client-contract check's planted bug is
// reported under its invariant within its seed budget, and the catching
// seed passes without the bug.
func TestContractDefectsCaught(t *testing.T) { assertCaughtUnderInvariant(t, contractDefectCases) }
