// Package statemachine is the pure, deterministic Felix stream-shard state
// machine: apply with conditional writes, keyed state with versions equal to
// offsets, the replay ring, consumer groups, feature gates and retention.
// The records it applies, the scope naming a shard and their size limits are
// package felix's (felix.Record, felix.Scope).
//
// It does no I/O, reads no clock (time is passed in as nanoseconds) and
// starts no goroutines. It must not import any felixsim package but felix.
// sim/detcheck (layers.go) scans the sources and fails on a clock, ambient
// randomness, I/O, a goroutine, a channel or a felixsim import.
//
// # One concept per file
//
//	config.go      Config, StreamKind, Features, the caps a Config may ask for
//	errors.go      sentinel errors and OffsetError
//	result.go      Result: Written{Offset} or Refused{Tail}
//	shard.go       Shard: construction, offsets, state reads
//	apply.go       Apply: check, condition, write (the only state change for records)
//	log.go         the retained log, a bounded ring
//	state.go       the keyed state view
//	replay.go      the replay window subscribers read
//	group.go       consumer-group commands and state
//	group_apply.go Fetch and Ack
//	retention.go   DropBefore and Rebuild
//	snapshot.go    Snapshot and Digest, for comparing and restoring replicas
//	inplace.go     single-row reads in place (LogAt, GroupGet), for checkers
//	changes.go     the state keys and groups changed lately (ChangesSince)
//
// # Semantics in brief
//
// A record carries one event (publish or enqueue; both write the same
// record) and zero or more put/delete operations. Apply writes it at the
// tail and returns Written{offset}; every key it puts gets version offset.
// A conditional record (publish_if, commit_if) is written only if its
// expected offset equals the tail, else Refused{tail} with nothing written.
// A record with state operations is a commit: an ephemeral stream refuses
// it (ErrEphemeralRefusesCommit), and so does every stream until the
// atomic_commit feature is finalized (ErrFeatureNotFinalized). Apply checks
// everything first and then writes the event and the state in one step, so
// a refused or failed apply changes nothing and no reader of a Shard can
// see half a record.
//
// The retained log holds at most Config.RetainedLenMax records (the oldest
// is dropped when full, unless a consumer group has not committed it: the
// write is then refused with ErrWindowHeld) and DropBefore drops a prefix. The state view is
// always the fold of the retained log: dropping a record forgets every key
// it wrote last (KeysDropped counts them). Subscribers read the replay
// window, the newest Config.ReplayWindowLenMax retained records; consumer
// groups read the whole retained log. Rebuild folds a retained log into a
// fresh shard equal, key for key, to the one that applied every record.
//
// Consumer groups are commands (GroupFetch, GroupAck) applied in log order
// like records, with the time chosen by the proposer: a fetch redelivers
// expired leases first, then hands out new records; an ack ends a lease;
// a group's committed position is its oldest unacked delivered offset and
// never moves backwards.
//
// A shard keeps the newest ChangesKeptMax state keys and consumer groups
// it wrote or deleted (ChangesSince), so a checker comparing it with a
// copy elsewhere (a broker's store) reads only what changed; nothing in
// the shard reads that list back.
package statemachine
