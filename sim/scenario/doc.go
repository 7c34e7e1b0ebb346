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
// The commands, one handler each (see each handler's comment for flags):
//
//	cluster:    brokers N, stream create NAME (before the cluster starts:
//	            topology; after: recreate a deleted stream), stream delete
//	            NAME, finalize FEATURE, upgrade broker N, replace broker N
//	client:     commit, commit-if ... at N, publish, publish-if, enqueue,
//	            state-get, sub, group fetch, group ack, group drain,
//	            outbox read, outbox trim (--client c, --nowait), await
//	faults:     kill, restart, pause, resume, partition A | B, block A -> B,
//	            heal, clock jump N +5s, disk tear N, crash N at op K,
//	            fault kind=KIND FIELD=VALUE... (any kind of the fault table)
//	time:       advance DURATION, advance --until TIME, stabilize
//	inspection: log, state, raft-log, leaders, membership, time, check
//
// A panic of the simulated system is
// the output of the command it happened in ("crash: ..."); after it only
// check runs.
//
// Parse reads a file (malformed lines are errors naming file and line);
// Run executes one on a fresh cluster and returns the actual output;
// Diff compares. The package is on the simulated path: no wall clock,
// goroutines or map order.
package scenario
