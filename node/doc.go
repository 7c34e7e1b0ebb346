// Package node is one Felix broker: a multi-raft host on go.etcd.io/raft/v3
// RawNode with one raft group per stream shard plus a metadata group
// (group 1), a single synchronous Ready loop that persists every group's
// raft state and the applied tables through one logstore Commit per Ready
// round, an apply path into statemachine shards, and the client-facing
// request handling (writes acknowledged after apply, state reads through
// raft ReadIndex, subscriber reads from the applied log, consumer-group
// commands through raft).
//
// # World
//
// A Node reaches the world only through its Host (its own clock reading,
// sending to peers and clients) and a vfs.FS: the same code could run on
// real sockets and disks. The host calls Tick every Config.TickNs on the
// node's clock and hands over every message that arrives (HandlePeer,
// HandleRequest). By default each input is processed at once; with
// Config.HostProcesses the host batches inputs and calls Process (group
// commit); HasWork tells it whether an input left anything to process. The node never blocks, starts no goroutine and reads no wall
// clock.
//
// # Raft groups, consumer groups and scopes
//
// "Group" alone is avoided: a raft group (raftGroup, raftgroup.go) is one
// replicated log, the metadata group or one stream shard's; a consumer
// group (consumergroup.go, statemachine.GroupState) is a named reader of
// one scope's log. A scope (felix.Scope) is one tenant's part of a stream
// shard; a stream shard's raft group holds many scopes. ReplicaState
// (replicastate.go) is what the simulator reads of a node at one instant;
// properties.ReplicaView is the checks' form of one scope's replica.
//
// Every broker replicates every group, bootstrapped from a snapshot at
// index 1, term 1, all peers voting (PreVote and CheckQuorum on).
// Membership then changes only through raft (membership.go): a broker that
// lost its store joins under a new raft id (Config.Join) as a learner,
// catches up by snapshot and is promoted only once the leader knows its
// stored log holds the whole committed prefix (raft's match index at the
// commit index); the old id is removed. The metadata group's snapshot carries the bootstrap
// Metadata (streams, broker versions, finalized fleet features); a booting
// node folds the group's stored committed commands onto it before it starts
// anything else (raft resumes after them), and refuses to start when its
// software version is older than a finalized feature needs. Stream shards
// get the next group ids in bootstrap order (RaftGroupOf). Any tenant may
// write to a stream: each tenant's records live in their own scope (tenant,
// namespace, stream, shard), a statemachine.Shard inside the shard's raft group,
// created by its first write or fetch (at most ScopesPerRaftGroupMax).
//
// # Fleet features and ephemeral streams (fleet.go, admin.go, ephemeral.go)
//
// Each broker reports its software version to the metadata group. An
// operator request (HandleAdmin) finalizes a feature only when every broker
// reports a version that supports it; the refusal names the brokers that do
// not. The shard groups' leaders then carry the decision into each shard
// group's own log as a marker, and commits are gated on what that log has
// applied, so every replica gates at the same index. An ephemeral stream's
// shard is served by its leader alone, without raft or the store: a publish
// reaches the subscribers live at that moment; whatever needs a log is
// refused.
//
// # The outbox (outbox.go)
//
// Every written record also adds an outbox row holding its event, keyed by
// (scope, offset), in the same store commit as its log and state rows. A
// relay reads a scope's outbox from the leader's store (OutboxRead: only
// what is applied and durable) and confirms what it delivered with
// OutboxTrim, a raft command, so every replica drops the same rows at the
// same log position. A scope's outbox is always the offsets [outbox start,
// next offset); the start is rebuilt from the store at boot.
//
// # Retention and what it owes (retention.go)
//
// Retention drops a prefix of a scope's log (by count, by age, or an
// operator's retain) and never a record a live consumer group has not
// committed: a group is a work queue, and a group stranded below the
// window could never fetch again, its undelivered work lost without
// anyone being told. So the broker holds retention back rather than
// telling the group afterwards: a retain command drops no further than
// the scope's lowest committed group position (clamped where every
// replica applies it), and a write that would make retention by count
// drop a record a group still owes is refused (Unavailable, nothing
// written) until the group acks. Retention never deletes an outbox row
// either; only the relay's trim does, after it delivered the row.
//
// # The processing cycle (ready.go)
//
// Ready rounds until no group has one: take every group's Ready; add each
// group's entries and hard state to one logstore.Batch; apply each group's
// committed entries to memory and add their rows (log, state, outbox,
// position, consumer groups) to the same batch; Commit it (one fsync);
// only then queue the raft messages, record ReadIndex results, Advance,
// answer the clients whose entries applied and the reads whose index is
// applied. The cycle ends with one PeerBatch per peer. A refused Commit
// fail-stops the node (Failed): memory may be ahead of the store, so only
// a restart from the store may continue.
//
// # Durable layout
//
// Besides raft state and the four tables' rows of every scope, the node
// keeps its bookkeeping in places the store types for it, under no
// reserved name (any valid tenant is a client's): each shard group's
// applied raft index on the group's raft write (GroupWrite.AppliedIndex),
// and each scope's consumer groups (positions and leases) in the store's
// consumer-group table. Open rebuilds from the store alone: each scope's
// shard is folded from its retained log rows, checked against its position
// row and (when retention dropped nothing) its state table rows; its
// groups are restored; raft resumes after the stored applied index.
//
// # Requests
//
// A write (publish, publish_if, enqueue, commit, commit_if) or a group
// command is checked, proposed by the shard's leader as a command naming
// the proposer, its incarnation and a sequence number, and answered when
// this node applies it: Written{offset}, Refused{tail} or an error. A
// proposal lost with a leadership change is never answered; it expires
// after PendingTimeoutNs and the client's call ends as unknown. state_get
// waits for ReadIndex and the apply of that index. Followers answer
// NotLeader with their leader hint. Pending tables are capped
// (PendingWritesMax, PendingReadsMax: refuse with Unavailable when full).
//
// # Planted defects
//
// Defects holds switchable bugs, all off by default, each the shape of a
// real mistake, for proving that the simulator's checks catch them.
// Two of them are the store's (NoFsync, KeepStaleSuffix: logstore.Defects
// when the node opens its store) and some the client library's
// (WrongRouteHash, TimeoutAsFailure, FailedOnCopyRefusal), kept in the
// same set so one list selects every bug. Every switch is read
// in defects.go, through a named hook the main path calls at the step the
// defect changes (with the defect off, the hook does what the broker
// does), so the request path reads as the broker; nothing else in node
// reads a Defects field (sim/runner's TestDefectTableNamesTheSwitchFiles
// holds it to that).
//
// # Observer
//
// Config.Observer, when set, is shown each boot after the rebuild, each
// round's durable raft state (hard state and the stored log around what
// was written), each durable round's groups, and each applied record with
// its shard, so a simulator can check invariants as a run goes
// (observe.go). It changes nothing. A checker comparing the store with
// memory reads both through storeimage.go: MemoryImage from memory,
// DurableImage from a DurableStore that follows the store file's durable
// bytes (logstore.Follower) and reads them back as recovery does; the
// images point at their tables, which it reads in place, row by row,
// through storeviews.go (ScopeView: a followed store's rows of one scope
// or a shard; RaftTail; ShardMark, where a shard's changes stood), and
// learns which rows changed on each side since it last compared them
// (DurableStore.TakeChanges, ScopeImage.ChangesSince).
//
// # Moments (moments.go)
//
// Config.OnMoment, when set, is told when a Ready round that installed a
// snapshot, applied a consumer-group ack, compacted a log or dropped a
// retained prefix, appended a membership change, or appended entries
// while client proposals are pending has become durable: a simulator may
// kill the node right there (a targeted fault).
//
// node imports raft, felix, logstore, statemachine, wire, vfs, modeltrace
// (the abstract trace it emits when Config.Trace is set) and moment (the
// moments it reports, a leaf beside felix). It imports nothing under sim/:
// the broker depends on nothing of its simulator (its host implements
// Host and calls OnMoment; sim/detcheck's layers table forbids the
// import). It must not import client, properties, tla or cmd either.
package node
