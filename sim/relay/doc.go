// Package relay is a simulated outbox relay, the stand-in for the seeds'
// Kafka listener (or a Debezium poller): a process that reads each scope's
// outbox from the brokers in offset order, hands every entry to a
// downstream sink, persists its position on its own simulated disk and
// then confirms the delivered entries so that the brokers trim them. It
// crashes and restarts under faults like a broker (a world node that plan
// faults may kill, pause, partition or whose disk they may fail); the
// sink, the downstream system, survives its crashes and records every
// delivery for the outbox checks in package properties: the newest in
// memory, the rest in a scratch file (sinkspill.go), read back a few
// scopes at a time.
//
// The relay's crash windows are the seeds' own: killed after delivering
// and before persisting its position, a restarted relay delivers again
// (at least once, never skipping ahead); its position lost or corrupt, it
// reads the outbox from the start, which holds only what it has not
// confirmed. It confirms (trims) only what its position file holds, so a
// trimmed entry was always delivered first.
//
// relay imports felix, client, wire, properties (the delivery's form),
// vfs, sim/world, sim/simapi and sim/cluster (the brokers' message types); it
// reads no wall clock, starts no goroutines and never lets map order reach
// behaviour.
package relay
