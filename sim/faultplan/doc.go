// Package faultplan is felixsim's fault plan: a run's faults and workload
// parameters as data (Plan), drawn from a seed (Generate, with swarm
// subsets, partners, progress windows, side kills, anchors and steering
// arms), printed and parsed back (planfmt.go, planops.go: the plan file
// format), made smaller for shrinking (faultsmaller.go), and scheduled on
// a world (ApplyPlan, ApplyFault). The fault kinds are one table
// (faultkinds.go): each kind's name, fields with their units, draw, checks
// and what it does to the world; targeted kinds wait for a broker to
// report a moment (sim/world's watches) and strike it there. Operator
// actions (operator.go) go to the world's Operator. EnumerateCrashStates
// checks every state a crash could leave a small window of writes in.
//
// faultplan may import sim/world (whose exported API it drives), sim/prng,
// vfs, coverage and moment; it must not import the harness (sim/cluster,
// sim/workload, sim/relay), the user's tools (sim/runner and beside it),
// the broker or cmd. It is on the simulated path: no wall clock, no global
// randomness, no goroutines, no map order reaching a plan (sim/detcheck).
package faultplan
