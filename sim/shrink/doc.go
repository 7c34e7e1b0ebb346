// Package shrink reduces a failing run to a small one that fails the same
// way: the library behind `felixsim shrink`. From a failing run (a seed,
// or a saved plan) it searches, by delta debugging, for a smaller plan
// that still violates the same invariant: a shorter fault phase, fewer
// faults (ddmin over the plan's faults), fewer workload operations (ddmin
// over every client's operation slots, carried in the plan's ops lines),
// gentler faults (faultplan.FaultEvent.Smaller), in rounds until a round
// changes nothing. The violation's evidence (the operations its message
// names, with their client, scope and times) steers the cheapest big
// steps first: the fault phase cut just past those operations, and the
// other clients' and scopes' operations dropped in one candidate each
// (focus.go); the latest faults alone, moved earlier, before ddmin over
// the faults; ddmin over whole clients and scopes before ddmin over slots
// (ops.go). A candidate is always judged by running it. The result is a plan `felixsim run --plan` replays;
// with Options.ArtifactDir the verified re-run is saved as a run
// (sim/artifact), which `felixsim replay DIR` re-runs hash-checked.
//
// Candidates run as `felixsim run --plan FILE --json` in fresh worker
// processes, one simulation per process, since the determinism guards
// are process-global; Jobs of them at a time, yet judged as if run in
// order, so the result does not depend on Jobs. The search is bounded by
// a wall-time budget and a candidate cap; when one stops it, the result
// says so. The failing run itself and the final check run in the calling
// process, one after the other: Shrink re-runs the shrunk plan, keeps its
// history for the listing, and reports it verified only when it violates
// the invariant with the trace hash its candidate run had.
//
// shrink is outside the simulated path (goroutines, the wall clock,
// os/exec, temporary files). It imports sim/faultplan, sim/runner, sim/workload
// (parameter names), sim/artifact, sim/sweep (worker stderr), sim/verdict
// (a worker's exit code) and properties; no simulated package may import it
// (sim/detcheck/layers.go).
package shrink
