// Package modeltrace is the abstract trace a broker emits for the model
// FelixAtomicCommit to validate: per raft group (one stream shard), the
// steps the model speaks of — a broker votes and becomes leader of a term,
// a client's commit becomes a proposal, a stored raft log grows or is
// truncated, a commit mark moves, an entry is applied (a record written to
// a scope's shard log, a refusal, or nothing), a client is answered, a
// broker restarts from its store, and a reader is served (a state read, a
// subscriber's records) from a broker's applied state.
//
// The broker (package node) emits steps through a Sink (nil: off, no
// cost); package tla validates them against the model's actions. NDJSON
// exports them (a header naming the format and the cluster, one step per
// line, an end line with the step count and a digest of every line
// before it) and Read reads an export back, saying whether it is whole.
//
// modeltrace is a leaf: it imports no felixsim package.
package modeltrace
