// Package world is felixsim's deterministic world: one seed expanded into
// named random streams, a virtual clock, one event queue driven by one
// goroutine, a network, per-node disks (FaultFS over vfs.Mem), process
// lifecycles, crashes at a disk operation and per-node clocks that all take
// faults, the determinism guards, the trace and its hash, and the
// heal-then-liveness machinery (Heal, Calm, RunUntil). It hosts generic
// processes (simapi.Process) and ends each run with a trace hash over every
// event it executed.
//
// A fault plan (sim/faultplan) reaches the world through a small API
// (faults.go): a plan's fault is an event the world fires at its time
// unless the world is healed by then, and while one is applied it is the
// cause the network, the disks and the processes note every condition
// under, for counting what it did (effects.go). Targeted faults wait for a
// process to report a moment (moment.Moment, through its Env) and strike
// it right there (watch.go). The world knows no fault kind.
//
// world wires parts together; it does not check the system under test
// (properties does). It may import sim/prng, sim/simapi, vfs, coverage and
// moment; it must not import sim/faultplan (which builds on it), anything
// of the broker (node, logstore, client: processes see the world only
// through sim/simapi) or cmd. It reads no wall clock, uses no global
// math/rand, starts no goroutines and never lets map order reach
// behaviour (the source check in sim/detcheck enforces this).
package world
