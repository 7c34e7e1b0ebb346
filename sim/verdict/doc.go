// Package verdict is the one rule that turns what a run saw into its
// verdict and its exit code, for every command that judges runs (run,
// sweep, merge, replay, shrink, scenario) and every report that states a
// verdict (run --json, report.json, the timeline page, the sweep report).
//
// A run's verdict is the most serious thing it saw, in this order:
// a safety violation (exit 1), a liveness violation (exit 4), a re-run
// that did not reproduce its saved trace hash (exit 5), no verdict
// (exit 3: the simulated system panicked, a seed ran out of wall time,
// an output could not be written, the evidence was lost), pass (exit 0).
// So a safety violation decides even when a crash, a timeout or a write
// error came after it, and "no verdict" is the answer only when nothing
// was violated.
//
// verdict is a leaf: it imports only properties (for the invariants'
// families), and holds no state, clock or randomness.
package verdict
