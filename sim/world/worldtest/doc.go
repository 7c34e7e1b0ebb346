// Package worldtest holds the small processes the tests of sim/world and
// sim/faultplan run in a world: the probe (a passive process that records
// what it receives and lets a test send and arm timers through its Env),
// the counter (a replicated max-counter that persists its value with a
// checksum, live after the heal) and an idle process, with the worlds
// built of them.
//
// It is test support, imported only by _test files: it may import
// sim/world, sim/simapi and vfs, and nothing of the broker.
package worldtest
