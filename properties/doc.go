// Package properties holds felixsim's invariants, written once as pure
// functions over plain data and checked everywhere: on the TLA+ mirror's
// model states (package tla), on cluster snapshots and on client histories
// (package sim). Each check returns nil when the property holds and
// otherwise an error that names the property and the values that break it.
//
// Two families live here. The replica checks (view.go, replica_*.go,
// reader.go) read a small neutral view of one broker's shard: its applied
// log and its state view (ReplicaView), or what one reader saw
// (ReaderView). The history checks (history_*.go) read a recorded client
// history against the replicas' logs.
//
// properties must not import any other felixsim package, nor anything with
// a wall clock, randomness or I/O: it is pure, so a test, the model
// explorer and the simulator can all call it.
package properties
