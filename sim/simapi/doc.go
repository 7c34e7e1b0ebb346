// Package simapi holds the few small interfaces through which a process
// (a broker, a workload client, a test protocol) lives in felixsim's
// deterministic world: the environment it is given (clock, timers, network,
// filesystem, random stream, the moments it reports: package moment) and
// the process shape the world drives.
//
// It sits under sim/world: the world's processes (the cluster's broker
// hosts, workload clients, test protocols) import it without importing the
// world. It may import sim/prng, vfs and moment; it must not import
// sim/world, node or anything that reads the wall clock. The broker (node)
// does not import it: a broker's host adapts it (sim/cluster).
package simapi
