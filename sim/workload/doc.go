// Package workload is felixsim's simulated Felix users: client processes of
// at least two tenants that reuse the same namespace, stream names, entity
// keys and state keys on purpose (so a scoping mistake collides), driving
// the client package over the simulated network — commit, commit_if that
// tracks the tail it last saw, publish, publish_if, enqueue, state_get,
// subscribe reads and consumer-group fetch/ack, and on an ephemeral stream
// live reads, live publishes and commits it must refuse — with a bounded number of
// calls in flight, per-call deadlines and retries. Every operation's
// invocation and completion (ok, refused, failed, unknown) is recorded in a
// properties.History with simulated times; a commit retried after an
// unknown outcome is recorded as a new operation linked to the first,
// because it may land twice (a write that certainly failed is re-sent the
// same way, always). Each sent write's history names its requests: the
// id, broker and answer of every attempt its call made.
//
// workload only generates load and records what it saw; checking belongs
// in properties. It imports client, sim/world (for node specs),
// sim/faultplan (plan parameters), sim/simapi and
// sim/prng, sim/cluster (for its message types and id mapping), wire,
// statemachine, properties and vfs (a long run's history waits in a
// vfs.Scratch file, each line tagged with its scope, so that the end
// checks read one scope's operations back without decoding the others':
// recorder.go, spill.go, ScopeHistory); it
// must not import node internals beyond what cluster exposes, sim/runner
// or cmd. Like every simulated-path package it reads no wall clock, uses
// no global randomness, starts no goroutines and never lets map order
// reach behaviour.
package workload
