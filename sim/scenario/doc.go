// Package scenario runs broker scenarios: plain-text scripts of felixctl-
// style commands (cluster, client, faults, time, inspection), each followed
// by the output it must print, run deterministically on a simulated
// cluster. A scenario pins one exact interleaving and reads as a story;
// rewriting updates the expected output in place.
//
// A file opens with a purpose paragraph ('#' lines). Then each command is
// one line, a line "----", and its expected output up to a blank line:
//
//	# The order-42 commit lands and state_get reads it at its offset.
//
//	brokers 3
//	----
//	ok
//
// Parse reads a file (malformed lines are errors naming file and line);
// Run executes one on a fresh cluster and returns the actual output;
// Diff compares. The package is on the simulated path: no wall clock,
// goroutines or map order.
package scenario
