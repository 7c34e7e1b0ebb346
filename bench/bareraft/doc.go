// Package bareraft drives etcd raft alone at the density of a felixsim
// run, to measure the floor under the simulator: the CPU that
// go.etcd.io/raft/v3 itself needs for the groups, ticks and proposals a
// run puts through it, with nothing else around it.
//
// Its one job is that measurement (BenchmarkBareRaft, make bench-floor,
// docs/performance.md). A Harness builds Groups raft groups of Replicas
// RawNodes each on raft.MemoryStorage, bootstrapped as felixsim's brokers
// are (every replica a voter, from a snapshot at index 1, term 1,
// PreVote and CheckQuorum on, felixsim's election and heartbeat ticks),
// and runs them in one goroutine as a fair minimal host would: time is
// counted, never read (ticks at TicksPerSecond of simulated time,
// proposals of ProposalBytes at ProposalsPerSecond spread round-robin
// over the groups, each proposed at its group's leader), messages pass as
// pointers with no latency, and every replica's Ready is handled in the
// order RAFT-NOTES.md verified (snapshot, entries, hard state, messages,
// apply, Advance). Every proposal does the raft work it does in felixsim:
// it is appended by the leader, replicated to and acknowledged by a quorum,
// committed, and applied on every replica; Verify checks that each
// accepted proposal was applied exactly once on every replica.
//
// What the floor leaves out, on purpose: faults and the elections they
// cause, ReadIndex reads, snapshots to lagging followers, membership
// changes (a run's conf changes are proposed here as ordinary entries of
// the mean size), and everything that is felixsim's own (store, state
// machine, checks, trace).
//
// bareraft imports go.etcd.io/raft/v3 and nothing of felixsim; it is
// outside the simulated path, but keeps its rules (no wall clock, no
// goroutines) so that its behaviour depends on counted time alone. Its
// output is not deterministic: raft draws election timeouts from
// crypto/rand, which only the simulator replaces.
package bareraft
