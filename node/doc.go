// Package node is one Felix broker: a multi-raft host on go.etcd.io/raft/v3
// RawNode with one raft group per stream shard plus a metadata group
// (group 1), a single synchronous Ready loop that persists every group's
// raft state and the applied tables through one logstore Commit per
// processing cycle, an apply path into statemachine shards, and the
// client-facing request handling (writes acknowledged after apply, state
// reads through raft ReadIndex, subscriber reads from the applied log,
// consumer-group commands through raft).
//
// A Node reaches the world only through its Host (its own clock reading,
// sending to peers and clients) and a vfs.FS: the same code could run on
// real sockets and disks. The host calls Tick every Config.TickNs on the
// node's clock and hands over every message that arrives; the node never
// blocks, starts no goroutine and reads no wall clock.
//
// node imports raft, logstore, statemachine, wire and vfs. It must not
// import sim, client, properties, tla or cmd.
package node
