// Package simapi holds the few small interfaces through which a process
// (a broker, a workload client, a test protocol) lives in felixsim's
// deterministic world: the environment it is given (clock, timers, network,
// filesystem, random stream, the moments it reports: moment.go) and the
// process shape the world drives.
//
// It is a leaf: node and client may import it without importing sim. It must
// not import sim, node or anything that reads the wall clock.
package simapi
