// Package properties holds felixsim's invariants, written once as pure
// functions over plain data and checked everywhere: on the TLA+ mirror's
// model states (package tla), on cluster snapshots and on client histories
// (package sim). Each check returns nil when the property holds and
// otherwise an error that names the property and the values that break it.
//
// A replica's shard log has one form here (view.go): ReplicaView, one
// broker's replica of one scope (its retained log of ViewEntry records,
// each an event and its ordered state operations at an offset, and its
// state view). Two families of checks read it. The replica checks
// (replica_*.go, reader.go, cluster_scopes.go) read one view, or one
// scope's views across brokers (ClusterScope), or what one reader saw
// (ReaderView). The history checks (history_*.go) read a recorded client
// history against each broker's views (ReplicaLog). A history speaks
// package felix's nouns (felix.Scope, felix.Record, felix.Entry) for what
// clients sent and read; the JSON names of its encoding live only in the
// codec (history_codec.go), and ViewEntryOf is the one conversion from a
// felix.Record to the log's form.
//
// The invariants are one registry (invariants.go): each has a typed name
// (InvariantName; every violation, here, in the runner and in the TLA+
// mirror, carries one), a one-line statement, a family (safety, liveness
// or crash: the CLI's exit code follows it) and the checks that report it.
// `felixsim run --list-invariants` prints it.
//
// properties must not import any felixsim package but felix (the leaf of
// the import graph), nor anything with a wall clock, randomness or I/O: it
// is pure, so a test, the model explorer and the simulator can all call it.
package properties
