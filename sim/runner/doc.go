// Package runner is the library behind `felixsim run`: from Options and a
// seed it builds the simulated cluster and the workload, derives the fault
// plan from the seed (swarm over the chosen fault kinds), runs the fault
// phase, heals, checks liveness (every shard elects a leader and accepts a
// commit within a bounded simulated time), quiesces, takes the cluster
// snapshot and runs every property check over the snapshot and the
// workload's history. It returns a Result: seed, trace hash, violations,
// operation counts and simulated seconds.
//
// runner reads no wall clock: the CLI (or a benchmark) measures wall time
// around Run. The run is a function of its Options alone, so the same
// options give the same trace hash. It imports sim, sim/cluster,
// sim/workload, node, properties and statemachine; it must not import cmd.
package runner
