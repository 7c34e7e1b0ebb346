package node

import (
	"errors"
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/moment"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/vfs"
)

// MetaGroup is the raft group id of the metadata group; stream shards get
// the ids after it, in bootstrap order (see RaftGroupOf).
const MetaGroup uint64 = 1

// Limits every Config must respect.
const (
	// PeersMax is the most brokers a cluster may have.
	PeersMax = 7
	// ShardGroupsMax is the most stream-shard raft groups a node hosts.
	ShardGroupsMax = 256
)

// FeatureAtomicCommit is the fleet feature that gates commit records.
const FeatureAtomicCommit = "atomic_commit"

// StreamSpec declares one stream of the bootstrap topology. Any tenant may
// write to it: each tenant's records live in their own scope (tenant,
// namespace, stream, shard) inside the shard's raft group.
type StreamSpec struct {
	Namespace string
	Stream    string
	// Shards is how many shards (raft groups) the stream has, at least 1.
	Shards uint32
	// Kind is quorum or ephemeral; the zero value is refused.
	Kind statemachine.StreamKind
	// RetainedLenMax, ReplayWindowLenMax, GroupsMax and LeasesPerGroupMax
	// configure every scope's statemachine.Shard (see statemachine.Config).
	RetainedLenMax     int
	ReplayWindowLenMax int
	GroupsMax          int
	LeasesPerGroupMax  int
	// RetainedAgeMaxNs drops a record once it is older than this, as the
	// group's leader measures it (0: no age limit; see retention.go).
	RetainedAgeMaxNs int64
}

// Bootstrap is the metadata a fresh cluster starts with; every broker must
// be given the same one. A node reads it only when its store is empty: a
// restarted node recovers its topology from its store.
type Bootstrap struct {
	Streams []StreamSpec
	// FinalizedFeatures are the fleet features finalized from the start
	// (FeatureAtomicCommit to accept commits).
	FinalizedFeatures []string
	// SoftwareVersion is every broker's software version at bootstrap.
	SoftwareVersion uint32
}

// Defects are planted bugs, each the shape of a real mistake, all off by
// default. The simulator's checkers must catch every one that is on.
type Defects struct {
	// StateReadWithoutReadIndex serves state_get from the local applied
	// state on whichever replica receives it, leader or not, without
	// ReadIndex: a lagging or partitioned replica answers a stale version.
	StateReadWithoutReadIndex bool
	// AckBeforeQuorum answers an unconditional write Written{offset} as
	// soon as it is proposed, with the offset the leader predicts, before
	// the quorum has it: a failover loses acknowledged writes.
	AckBeforeQuorum bool
	// CommitIfCheckedAtProposal checks commit_if/publish_if against the
	// leader's applied tail when proposing and proposes the record
	// unconditionally: two racing conditional writes can both land.
	CommitIfCheckedAtProposal bool
	// CommitAsTwoRecords proposes a commit as two records: the event
	// alone, then its state operations under an empty event. A reader
	// between them sees the event without its state.
	CommitAsTwoRecords bool
	// PositionApartFromState commits each round's raft state and positions
	// in one store commit and the log, state and outbox rows in a second:
	// a crash between them leaves positions claiming rows that are lost.
	PositionApartFromState bool
	// EarlyFinalize accepts a finalize whatever versions the brokers
	// report, and a broker older than the feature applies commit records
	// as an old version would: the event alone, without its state
	// operations.
	EarlyFinalize bool
	// PartialApply applies a written record in two steps: its event when
	// its entry applies, its state operations at the start of the next
	// Ready round. Reads served in between see the event without its
	// state (the store still gets both in one commit).
	PartialApply bool
	// NoFsync opens the store with its fsync skipped (the store's
	// DefectSkipFsync): commits are acknowledged before they are durable,
	// and a crash loses them.
	NoFsync bool
	// KeepStaleSuffix opens the store with its conflicting-suffix
	// truncation broken (the store's DefectKeepStaleSuffix): a follower
	// whose log is overwritten by a shorter conflicting append keeps the
	// old entries beyond it.
	KeepStaleSuffix bool
	// RecoveryCutsLastCommit opens the store with its recovery off by one
	// transaction (the store's DefectCutLastTxn): a crash that leaves a
	// store commit half-written also loses the whole one before it,
	// synced and acknowledged (its appends, its applied rows, its hard
	// state).
	RecoveryCutsLastCommit bool
	// VoteNotPersisted persists raft's hard state without its vote: a
	// broker restarted within a term has forgotten whom it voted for and
	// may vote twice.
	VoteNotPersisted bool
	// AckNotPersisted applies a consumer-group ack in memory but leaves
	// the group's row out of the round's store commit: a restart before
	// the group's next fetch is written restores its position from before
	// the ack, so the position moves back.
	AckNotPersisted bool
	// RedeliverAcked forgets every ack but the one of the group's oldest
	// lease (statemachine.Shard.AckOldestOnly): a record whose ack
	// succeeded is handed out again once its lease expires.
	RedeliverAcked bool
	// LeaseByLocalClock judges a fetch's leases by the applying replica's
	// own clock instead of the time the proposer put in the command:
	// replicas apply the same fetch at different times, so their leases
	// (and later what they hand out) diverge.
	LeaseByLocalClock bool
	// AckDropsOlderLeases reads an ack as a cumulative offset commit
	// (statemachine.Shard.AckDropsOlderLeases): every lease below the
	// acked offset ends with it, so a record handed out in an answer that
	// was lost is never delivered.
	AckDropsOlderLeases bool
	// WrongRouteHash is a client-library bug carried in the same set so
	// that one list selects every planted bug: the simulated clients
	// route with FNV-1 (multiply before XOR) instead of FNV-1a. The node
	// itself ignores it (a request does not carry its entity key).
	WrongRouteHash bool
	// UnscopedOutbox keys outbox rows by stream shard and offset alone,
	// without the tenant: two tenants writing the same offset of a shard
	// overwrite each other's outbox entry, and one tenant's trim drops
	// the other's.
	UnscopedOutbox bool
	// RejoinOldIdentity is an operator bug carried in the same set: a
	// simulated cluster whose broker lost its disk boots it again under
	// its old raft id on the empty disk (it bootstraps afresh and may
	// vote twice in a term) instead of replacing it through a membership
	// change. The node itself ignores it.
	RejoinOldIdentity bool
	// RecreateKeepsState keeps a stream shard's scopes when its stream is
	// deleted and created again: the new generation's readers see the old
	// generation's records and state (see streamadmin.go).
	RecreateKeepsState bool
	// SnapshotWithoutGroups builds a group snapshot without its consumer
	// groups: a broker that installs it (lagging, or a replacement) loses
	// every group's committed position.
	SnapshotWithoutGroups bool
	// ReproposePending makes a leader "helpfully" propose again a record
	// write it proposed that has not applied after ReproposeAfterTicks
	// ticks, in case raft dropped it: a proposal that was only slow (a
	// slow follower, a lost append, a paused broker) then lands twice
	// from one delivered copy of the request.
	ReproposePending bool
	// NotLeaderAfterPropose makes a leader that steps down answer every
	// write it proposed and has not applied with NotLeader, as it rightly
	// does its pending state reads, so the client can re-send at once. But
	// NotLeader promises the copy was not proposed: the proposal may still
	// commit under the new leader, and the client's re-send lands a second
	// copy from one call that redirected as if nothing had been written.
	NotLeaderAfterPropose bool
	// TimeoutAsFailure is a client-library bug carried in the same set
	// (client.Defects.TimeoutAsFailure): the simulated clients' library
	// reports a write that missed its deadline as failed, not unknown, so
	// a client re-sends it as a write that certainly did not land. The
	// node itself ignores it.
	TimeoutAsFailure bool
	// StateReadValueAtArrival looks a state read's value up when the read
	// arrives and answers that value once its ReadIndex is applied: the
	// barrier confirms leadership and waits for the apply, but the answer
	// was taken before either, so it can miss writes the broker applied
	// in between (a read served at an applied index its value is not of).
	StateReadValueAtArrival bool
	// InstallKeepsOldGroups has a snapshot install write, for each scope,
	// the consumer-group rows of the groups the replica held before the
	// install (none for a scope new to it, as on a replacement broker)
	// instead of the snapshot's: memory holds the snapshot's positions,
	// the store older ones or none, until each group's next fetch or ack
	// writes its row again. A restart before then moves them back.
	InstallKeepsOldGroups bool
	// OutboxTrimOneShort deletes, on a relay's trim, the outbox rows up
	// to but not including the last one trimmed, while memory moves the
	// outbox start past it: the store keeps one confirmed event per trim,
	// below where memory says the outbox starts, and a restart hands the
	// relay every one of them again.
	OutboxTrimOneShort bool
	// RetainIgnoresGroups computes a retention step from the log alone
	// (an operator's retain keeps the newest records, whatever the
	// consumer groups have committed) and applies it unclamped: a group
	// behind the new window start is stranded, its undelivered records
	// gone.
	RetainIgnoresGroups bool
	// RetainDropsOutbox deletes, with the records a retention step drops
	// from the log, their outbox rows (and moves the outbox start past
	// them): an event the relay had not yet delivered never reaches it.
	RetainDropsOutbox bool
	// PromoteBeforeCaughtUp counts a learner as caught up as soon as it
	// has answered the leader (raft's RecentActive), not when its log
	// holds the leader's committed prefix: a learner is promoted to voter
	// with a log that lacks committed entries.
	PromoteBeforeCaughtUp bool
	// WritesWaitForLearner makes a leader refuse new writes (Unavailable)
	// while a learner of its group has not caught up, "so that it does
	// not fall further behind": during a membership change whose new
	// member is down or slow, a group with a connected majority of voters
	// stops acknowledging writes.
	WritesWaitForLearner bool
	// EphemeralReadKeepsQueue makes a live subscriber's read of an
	// ephemeral stream copy what was queued for it without draining it
	// (the slice is copied, the cursor never moves): its next read hands
	// it the same publishes again.
	EphemeralReadKeepsQueue bool
	// EphemeralCommitToSubscribers serves every request that carries a
	// record on an ephemeral stream as a publish: a commit's event goes to
	// the live subscribers without its state, answered Acked, where the
	// stream must refuse it (EphemeralStream) and deliver nothing.
	EphemeralCommitToSubscribers bool
	// RecreateStrandsGroups empties a stream shard's scopes when its
	// stream is created again but leaves their consumer groups where the
	// old generation had them: a group that lagged, or held leases, is
	// stranded below the new generation's window, every fetch refused.
	RecreateStrandsGroups bool
	// LeaseReadByTicks serves a leader's state_get from its applied state
	// at once, without a ReadIndex, while its lease holds: half an
	// election timeout of its own ticks since a ReadIndex last confirmed
	// its leadership. Ticks stop while the process is paused (and while
	// its clock stalls), so a leader paused past an election, resumed
	// before it hears from the new leader, trusts a leadership it lost
	// and answers reads that miss writes the new leader acknowledged
	// (rare_defects.go).
	LeaseReadByTicks bool
	// PendingMatchedBySeq matches an applied entry this node proposed to
	// the pending write it answers by sequence number alone, not by
	// incarnation: a restarted broker that applies its earlier
	// incarnation's proposal answers, with that proposal's outcome, the
	// write this incarnation gave the same sequence number
	// (rare_defects.go).
	PendingMatchedBySeq bool
	// EphemeralUnscoped keys an ephemeral shard's live subscribers by the
	// shard alone, not by tenant: one tenant's publishes reach every
	// tenant's subscribers of the same namespace, stream and shard.
	EphemeralUnscoped bool
	// The client-contract checks' planted bugs:
	// LeaseUnitSlip hands a fetch's lease to the state machine in the
	// wrong unit (the wire's nanoseconds read as microseconds: a
	// thousandth of the lease) while the answer reports the lease the
	// client asked for: a record is handed out again long before the
	// expiry its consumer was told.
	LeaseUnitSlip bool
	// FailedOnCopyRefusal is a client-library bug carried in the same set
	// (client.Defects.FailedOnCopyRefusal): the simulated clients
	// report a write whose last copy a broker refused as failed, not
	// unknown. The node itself ignores it.
	FailedOnCopyRefusal bool
	// CommandsNotLeaderAfterPropose makes a leader that steps down answer
	// every group fetch, group ack and outbox trim it proposed and has not
	// applied with NotLeader, as NotLeaderAfterPropose does writes: the
	// command may still commit under the next leader (a fetch's records
	// leased to nobody, an ack or a trim applied twice), though NotLeader
	// promised this copy was not proposed.
	CommandsNotLeaderAfterPropose bool
	// OutboxReadFromWindow serves a relay's outbox read from the scope's
	// retained log window when the read starts below it, as a subscribe
	// read is bounded: the rows retention dropped from the log but the
	// outbox keeps until relayed are skipped, and the relay starts past
	// the first record it had not relayed.
	OutboxReadFromWindow bool
	// DeletedStreamTakesWrites refuses a deleted stream's requests at the
	// leader only: a write a leader accepted while the stream was live
	// and that applies after the delete's marker is written all the
	// same, into the deleted generation (then emptied by the create) or
	// into the next one, whatever generation it was accepted in.
	DeletedStreamTakesWrites bool
	// LiveReadWaitsForBatch answers a live subscriber's read of an
	// ephemeral stream only once a full batch (its entry cap) is queued
	// for it: a read that finds fewer answers nothing and keeps the
	// queue, so an empty answer no longer means the subscriber is caught
	// up, and what it is owed comes late, or never if it goes idle.
	LiveReadWaitsForBatch bool
}

// Config configures one broker; build it by field name.
type Config struct {
	// ID is this broker's raft node id, one of Peers unless Join.
	ID uint64
	// Peers are the brokers of a fresh cluster: every group's voters at
	// bootstrap (every broker replicates every group). Membership then
	// changes only through raft (see membership.go).
	Peers []uint64
	// Join makes a node with an empty store wait to be added to every
	// group by a membership change instead of bootstrapping: a broker
	// replacing one that lost its store, under a raft id never used
	// before. Its topology is Bootstrap.Streams until the metadata
	// group's snapshot arrives.
	Join bool
	// FS is the node's durable filesystem; the store lives in its root.
	FS vfs.FS
	// TickNs is the interval at which the host calls Tick on the node's clock.
	TickNs int64
	// ElectionTicks and HeartbeatTicks configure raft (e.g. 10 and 1).
	ElectionTicks  int
	HeartbeatTicks int
	// Bootstrap is the initial metadata, used only on an empty store.
	Bootstrap Bootstrap
	// PendingWritesMax caps proposals awaiting apply; a write arriving when
	// full is refused with Unavailable.
	PendingWritesMax int
	// PendingReadsMax caps state reads awaiting ReadIndex; a read arriving
	// when full is refused with Unavailable.
	PendingReadsMax int
	// PendingTimeoutNs drops a pending write or read this long after it
	// arrived (node clock) without answering: the client has given up.
	PendingTimeoutNs int64
	// HostProcesses makes Tick, HandlePeer and HandleRequest only take
	// their input: the host must then call Process (e.g. once per batch
	// window, as group commit), which persists, sends and answers. When
	// false every input is processed at once.
	HostProcesses bool
	// SoftwareVersion is the version this broker runs; 0 means
	// Bootstrap.SoftwareVersion. It is reported through the metadata
	// group, and a version older than a finalized feature needs refuses
	// to start.
	SoftwareVersion uint32
	// CompactEntriesMin and CompactKeepEntries tune raft log compaction
	// (see snapshot.go); zero takes CompactEntriesMinDefault and
	// CompactKeepEntriesDefault.
	CompactEntriesMin  int
	CompactKeepEntries int
	// Defects are planted bugs; all off in a correct broker.
	Defects Defects
	// Observer, when not nil, is shown the node's steps as they happen
	// (boot, each durable round, each applied record) so a simulator can
	// check invariants throughout a run; nil in production.
	Observer Observer
	// Density, when not nil, counts the node's raft ticks and proposals
	// (density.go); a host may share one between its nodes. It changes
	// nothing the node does.
	Density *Density
	// Trace receives the node's abstract trace for the model to validate;
	// nil (the default) emits nothing.
	Trace modeltrace.Sink
	// OnLeader, if set, is called when this node becomes a group's leader,
	// with the group and the term (a host that sees every broker can tell
	// a failover from a re-election). It must not call back into the node.
	OnLeader func(group, term uint64)
	// OnPath, if set, is called when this node takes one of the rare
	// paths a host counts (see Path). It must not call back into the node.
	OnPath func(p Path)
	// OnMoment, if set, is called when this node has just reached a
	// moment that matters for crash recovery (see moments.go), once the
	// store commit that made it durable has returned. It must not call
	// back into the node; it may end the node's process there (a
	// simulated kill that unwinds the call).
	OnMoment func(m moment.Moment)
}

// Path names a rare path of the node, for a host's coverage counts; the
// zero value is invalid.
type Path uint8

// Paths.
const (
	pathInvalid Path = iota
	// PathSnapshotSent: a raft snapshot of a group was sent to a follower.
	PathSnapshotSent
	// PathSnapshotInstalled: a received raft snapshot was installed.
	PathSnapshotInstalled
	// PathMembershipChange: a group applied a membership change.
	PathMembershipChange
	// PathRetentionHeld: a leader proposed a retention step shorter than
	// asked, held back by a consumer group's committed position.
	PathRetentionHeld
	// PathSeqOfEarlierIncarnation: the node applied an entry an earlier
	// incarnation of it proposed whose seq is that of a write pending in
	// this incarnation (a restarted broker's seqs start again).
	PathSeqOfEarlierIncarnation
)

// notePath tells the host that the node took path p.
func (n *Node) notePath(p Path) {
	if n.cfg.OnPath != nil {
		n.cfg.OnPath(p)
	}
}

func (c *Config) compactEntriesMin() int {
	if c.CompactEntriesMin > 0 {
		return c.CompactEntriesMin
	}
	return CompactEntriesMinDefault
}

func (c *Config) compactKeepEntries() int {
	if c.CompactKeepEntries > 0 {
		return c.CompactKeepEntries
	}
	return CompactKeepEntriesDefault
}

// ErrInvalidConfig marks a Config refused for its shape.
var ErrInvalidConfig = errors.New("invalid node config")

// Validate checks the config and its bootstrap topology.
func (c *Config) Validate() error {
	if len(c.Peers) == 0 || len(c.Peers) > PeersMax {
		return fmt.Errorf("%w: %d peers, want 1..%d", ErrInvalidConfig, len(c.Peers), PeersMax)
	}
	if !sort.SliceIsSorted(c.Peers, func(i, j int) bool { return c.Peers[i] < c.Peers[j] }) {
		return fmt.Errorf("%w: peers %v are not in ascending order", ErrInvalidConfig, c.Peers)
	}
	found := false
	for i, p := range c.Peers {
		if p == 0 || (i > 0 && p == c.Peers[i-1]) {
			return fmt.Errorf("%w: peer ids %v must be non-zero and distinct", ErrInvalidConfig, c.Peers)
		}
		found = found || p == c.ID
	}
	if c.ID == 0 {
		return fmt.Errorf("%w: node id 0 is reserved (raft's none)", ErrInvalidConfig)
	}
	if !found && !c.Join {
		return fmt.Errorf("%w: node id %d is not among peers %v (only a joining node may be new)", ErrInvalidConfig, c.ID, c.Peers)
	}
	if c.FS == nil {
		return fmt.Errorf("%w: FS is nil", ErrInvalidConfig)
	}
	if c.TickNs < 1 || c.ElectionTicks < 2 || c.HeartbeatTicks < 1 || c.HeartbeatTicks >= c.ElectionTicks {
		return fmt.Errorf("%w: tick %d ns, election %d ticks, heartbeat %d ticks (want tick >= 1, 1 <= heartbeat < election)",
			ErrInvalidConfig, c.TickNs, c.ElectionTicks, c.HeartbeatTicks)
	}
	if c.CompactEntriesMin < 0 || c.CompactKeepEntries < 0 {
		return fmt.Errorf("%w: compaction every %d entries keeping %d: neither may be negative", ErrInvalidConfig, c.CompactEntriesMin, c.CompactKeepEntries)
	}
	if c.PendingWritesMax < 1 || c.PendingReadsMax < 1 || c.PendingTimeoutNs < 1 {
		return fmt.Errorf("%w: pending writes max %d, reads max %d, timeout %d ns: each must be at least 1",
			ErrInvalidConfig, c.PendingWritesMax, c.PendingReadsMax, c.PendingTimeoutNs)
	}
	return c.Bootstrap.Validate()
}

// Validate checks every stream spec, the total group count and that the
// bootstrap version supports every feature it finalizes.
func (b *Bootstrap) Validate() error {
	if b.SoftwareVersion < 1 {
		return fmt.Errorf("%w: bootstrap software version %d, want at least 1", ErrInvalidConfig, b.SoftwareVersion)
	}
	for _, name := range b.FinalizedFeatures {
		f, ok := featureOf(name)
		if !ok {
			return fmt.Errorf("%w: bootstrap finalizes %q, which is no fleet feature", ErrInvalidConfig, name)
		}
		if b.SoftwareVersion < f.VersionMin {
			return fmt.Errorf("%w: bootstrap finalizes %s at version %d, which needs version %d", ErrInvalidConfig, name, b.SoftwareVersion, f.VersionMin)
		}
	}
	return b.validateStreams()
}

// validateStreams checks every stream spec and the total group count.
func (b *Bootstrap) validateStreams() error {
	total := 0
	seen := map[[2]string]bool{}
	for i := range b.Streams {
		s := &b.Streams[i]
		if s.Shards < 1 {
			return fmt.Errorf("%w: stream %s/%s has %d shards, want at least 1", ErrInvalidConfig, s.Namespace, s.Stream, s.Shards)
		}
		key := [2]string{s.Namespace, s.Stream}
		if seen[key] {
			return fmt.Errorf("%w: stream %s/%s declared twice", ErrInvalidConfig, s.Namespace, s.Stream)
		}
		seen[key] = true
		cfg := s.shardConfig(felix.Scope{Tenant: "t", Namespace: s.Namespace, Stream: s.Stream})
		if err := cfg.Validate(); err != nil {
			return fmt.Errorf("%w: stream %s/%s: %v", ErrInvalidConfig, s.Namespace, s.Stream, err)
		}
		if s.RetainedAgeMaxNs < 0 {
			return fmt.Errorf("%w: stream %s/%s has a negative retention age %d ns", ErrInvalidConfig, s.Namespace, s.Stream, s.RetainedAgeMaxNs)
		}
		total += int(s.Shards)
	}
	if total > ShardGroupsMax {
		return fmt.Errorf("%w: %d stream shards exceed %d", ErrInvalidConfig, total, ShardGroupsMax)
	}
	return nil
}

// shardConfig is the statemachine config of one scope of this stream.
func (s *StreamSpec) shardConfig(scope felix.Scope) statemachine.Config {
	return statemachine.Config{
		Scope:              scope,
		Kind:               s.Kind,
		RetainedLenMax:     s.RetainedLenMax,
		ReplayWindowLenMax: s.ReplayWindowLenMax,
		GroupsMax:          s.GroupsMax,
		LeasesPerGroupMax:  s.LeasesPerGroupMax,
	}
}
