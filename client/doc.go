// Package client is the Felix client API in Go: CommitOp builders, Commit,
// CommitIf, Publish, PublishIf, Enqueue, StateGet, Subscribe and consumer
// group calls, entity-key routing to a shard, and validation that refuses a
// bad call before anything is sent.
//
// The client is built for a single-goroutine deterministic simulator: it
// starts no goroutines, never blocks and reads no clock. The caller supplies
// a Transport, hands broker answers back through Deliver, passes time in as
// nowNs, and calls Tick to fail overdue calls. Every call returns a Pending
// handle that completes exactly once, through a callback or by polling.
//
// A write is not idempotent. The client never re-sends a write whose answer
// did not come: such a call completes with an unknown outcome, and retrying
// is the caller's choice. The one automatic re-send is after a NotLeader
// answer, which guarantees nothing was written.
//
// client imports felix and wire; it must not import statemachine, node,
// anything under sim/, logstore or properties.
package client
