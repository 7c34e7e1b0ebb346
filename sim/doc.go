// Package sim is felixsim's deterministic world: one seed expanded into named
// random streams, a virtual clock, one event queue driven by one goroutine,
// a network, per-node disks, process lifecycles and per-node clocks that all
// take faults, fault plans as data, determinism guards, and the heal-then-
// liveness phase. It hosts generic processes (simapi.Process) and ends each
// run with a trace hash over every event it executed. The fault kinds are
// one table (faultkinds.go); targeted ones wait for a process to report a
// moment (simapi.Moment, through its Env) and strike it right there
// (targeted.go).
//
// sim wires parts together; it does not check the system under test
// (properties does). It must not import cmd, and node must not import sim:
// processes see the world only through sim/simapi. sim reads no wall clock,
// uses no global math/rand, starts no goroutines and never lets map order
// reach behaviour (the source check in sim/detcheck enforces this).
package sim
