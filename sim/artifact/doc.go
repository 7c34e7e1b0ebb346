// Package artifact is the on-disk form of one run, written by `felixsim
// run --out DIR` and read back by `felixsim replay`: the plan (with the
// felixsim revision that drew it and the expected trace hash), the
// history, the violation report as JSON, the full event trace as ndjson,
// and timeline.html. Its readers are strict: a truncated or corrupt file
// is refused with the file, the line and the reason. Replay re-runs a
// saved plan, checks the hash and names the first event that differs.
//
// artifact is not on the simulated path (it reads and writes files); it
// imports sim/world, sim/faultplan, sim/runner, sim/timeline, sim/workload,
// sim/verdict and properties, and must not
// import cmd. sim/detcheck/layers.go holds the table.
package artifact
