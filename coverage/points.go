package coverage

import "fmt"

// Declaration states what one point counts and whether a sweep over the CI
// seed range must reach it at least once.
type Declaration struct {
	Point Point
	// Statement says in one line what a visit of the point is.
	Statement string
	// Sometimes says the point must be reached at least once over the CI
	// seed range of the default run (a path that only a planted defect or
	// a special configuration takes says false).
	Sometimes bool
}

// The declared points. Adding a point is one constant and one entry in
// declarations.
const (
	// RaftFailover: a shard group's leadership passed to another broker.
	RaftFailover Point = "raft.failover"
	// LogstoreRecoverPartial: a store opened after a crash cut away whole
	// frames of a transaction that had no commit marker.
	LogstoreRecoverPartial Point = "logstore.recover.partial"
	// LogstoreRecoverTorn: a store opened after a crash cut away a final
	// transaction torn inside a frame.
	LogstoreRecoverTorn Point = "logstore.recover.torn"
	// LogstoreRecoverSealRestored: a store opened after a crash kept a
	// transaction whose commit marker's copy was torn, and rewrote the copy.
	LogstoreRecoverSealRestored Point = "logstore.recover.seal_restored"
	// ClientRequestToDeposedLeader: a client request reached a broker that
	// still believed it led the request's raft group, after another broker had
	// acknowledged a write in that raft group in a later term.
	ClientRequestToDeposedLeader Point = "client.request.to_deposed_leader"
	// ClientReadToDeposedLeader: the same, for a state read.
	ClientReadToDeposedLeader Point = "client.read.to_deposed_leader"
	// RaftPromotionSecond: a group failed over again after a first
	// failover (the "second promotion" CommittedNeverLost must survive).
	RaftPromotionSecond Point = "raft.promotion.second"
	// StoreCorruptDetected: a broker's store refused to open as corrupt.
	StoreCorruptDetected Point = "logstore.recover.corrupt"
	// BrokerFailStop: a broker stopped on a store error.
	BrokerFailStop Point = "broker.failstop"
	// CommitIfRefused: a client's commit_if or publish_if was refused with
	// the true tail.
	CommitIfRefused Point = "workload.conditional.refused"
	// WriteRetried: a client re-sent a write after an unknown outcome.
	WriteRetried Point = "workload.write.retried"
	// RetryLandedTwice: a retried write's record is in a replica's log twice.
	RetryLandedTwice Point = "workload.write.landed_twice"
	// StreamDeleted: the operator deleted a live stream and every shard
	// applied the delete. The stream points are not Sometimes: the
	// default run draws no operator action (runner.AllFaults);
	// TestOperatorActionsBounded requires them over its own sweep.
	StreamDeleted Point = "admin.stream.delete"
	// StreamRecreated: the operator created a deleted stream again and
	// every shard applied the new generation.
	StreamRecreated Point = "admin.stream.recreate"
	// StreamRequestRefusedDeleted: a request for a deleted stream was
	// refused naming the deletion.
	StreamRequestRefusedDeleted Point = "admin.stream.refused_deleted"
	// StreamReadNewGeneration: a state read sent after a create was done
	// was answered (found or absent) by the new generation.
	StreamReadNewGeneration Point = "admin.stream.read_new_generation"
	// FleetUpgradeStep: the operator restarted a broker at the rolling
	// upgrade's version.
	FleetUpgradeStep Point = "admin.fleet.upgrade_step"
	// FleetFinalized: the operator's finalize of the rolling upgrade's
	// feature was applied.
	FleetFinalized Point = "admin.fleet.finalized"
	// SnapshotSent: a broker sent a raft snapshot of a group to a follower.
	SnapshotSent Point = "snapshot.sent"
	// SnapshotInstalled: a broker installed a received raft snapshot.
	SnapshotInstalled Point = "snapshot.installed"
	// MembershipChange: a broker applied a raft membership change.
	MembershipChange Point = "membership.change"
	// BrokerReplaced: a broker slot's disk was replaced and the operator
	// began replacing its identity.
	BrokerReplaced Point = "broker.replaced"
	// RelayDelivered: the outbox relay handed an entry to its sink.
	RelayDelivered Point = "relay.delivered"
	// RelayRedelivered: the relay handed the sink an entry at or below one
	// it had already delivered in that scope (at least once, after a crash).
	RelayRedelivered Point = "relay.redelivered"
	// RelayRestarted: the relay booted again after a crash.
	RelayRestarted Point = "relay.restarted"
	// RelayFreshStart: a relay booting again after a crash found no
	// usable position file and read every scope's outbox from offset 0.
	RelayFreshStart Point = "relay.fresh_start"
	// RelayTrimmed: the brokers acknowledged a relay's trim of the entries
	// it had delivered and persisted.
	RelayTrimmed Point = "relay.trimmed"
	// AnswerCopyRefusedJudged: a write request answered NotLeader or
	// Unavailable was judged against the proposals the brokers' trace
	// shows (AnswersHonest).
	AnswerCopyRefusedJudged Point = "answers.copy_refused.judged"
	// RetryOwnLanding: a retried write's own request landed, matched to it
	// by request id (a payload could not tell it from its original's).
	RetryOwnLanding Point = "answers.retry.own_landing"
	// TargetedSnapshotInstalled and the four after it: a targeted fault
	// (sim/faultplan's fault table: restartafter, crashafter) struck a broker right
	// after it reached the moment its name ends in (moment.Moment).
	// TargetedCompacted is not Sometimes: a 10 s run compacts only when a
	// retention step drops a prefix; TestTargetedWindowsBounded requires
	// all five over its own sweep.
	TargetedSnapshotInstalled  Point = "targeted.snapshot_installed"
	TargetedGroupAckDurable    Point = "targeted.group_ack_durable"
	TargetedCompacted          Point = "targeted.compacted"
	TargetedMembershipInFlight Point = "targeted.membership_in_flight"
	TargetedPendingHeld        Point = "targeted.pending_held"
	TargetedPendingHeldYoung   Point = "targeted.pending_held_young"
	// TargetedReadsConfirmed: a targeted fault (pauseafter) struck a
	// leader right after a ReadIndex confirmed its leadership.
	TargetedReadsConfirmed Point = "targeted.reads_confirmed"
	// RetentionHeldByGroup: a leader proposed a retention step shorter
	// than asked, because a consumer group had not committed past it.
	RetentionHeldByGroup Point = "retention.held_by_group"
	// PromotionJudged: PromotedCaughtUp judged a promotion to voter
	// against the leader's committed prefix.
	PromotionJudged Point = "membership.promotion.judged"
	// ChangeWriteAcked: during a membership change, a majority-connected
	// shard group acknowledged the change probe's write.
	ChangeWriteAcked Point = "membership.change.write_acked"
	// EphemeralDeliveredLive: a live subscriber of an ephemeral stream
	// read a publish the stream's leader handed it.
	EphemeralDeliveredLive Point = "ephemeral.publish.delivered_live"
	// EphemeralCommitRefused: a commit or commit_if on an ephemeral
	// stream was answered EphemeralStream.
	EphemeralCommitRefused Point = "ephemeral.commit.refused"
	// StreamGroupAcrossRecreate: a consumer group of the administered
	// stream that fetched in an earlier generation fetched again after a
	// re-creation was done and was answered by the new generation. Not
	// Sometimes, like the other stream points.
	StreamGroupAcrossRecreate Point = "admin.stream.group_across_recreate"
	// PendingSeqOfEarlierIncarnation: a restarted broker applied an entry
	// its earlier incarnation proposed whose seq is that of a write
	// pending in the new incarnation (node.PathSeqOfEarlierIncarnation).
	// Not Sometimes: it needs a young incarnation killed while holding
	// proposals (targeted.pending_held_young), back within a quick
	// restart and leading again before its old entries commit; one seed
	// of 1..500 (20 s, --faults all,operator) took it, restartafter alone
	// every 0.3 s five of 1..40, which TestEarlierIncarnationSeqReached
	// counts.
	PendingSeqOfEarlierIncarnation Point = "broker.pending.seq_of_earlier_incarnation"
	// RetentionAtGroupPosition: a retention step dropped a scope's records
	// up to within RetentionNearGroupRecords of a consumer group's
	// committed position there (or past it).
	RetentionAtGroupPosition Point = "retention.at_group_position"
	// LearnerPromoted: a learner (a replaced broker's new identity) was
	// seen promoted to voter in a raft group.
	LearnerPromoted Point = "membership.learner_promoted"
	// ContractLeaseRedeliveryJudged: two answered fetches that handed out
	// one record were judged by the lease rule (GroupLeaseHonored).
	ContractLeaseRedeliveryJudged Point = "contract.lease.redelivery_judged"
	// ContractLeaseExpiryJudged: an answered fetch with room was judged,
	// in log order, for a lease known to have expired unacknowledged. Not
	// Sometimes: the workload acks every record it is handed at once, so
	// it needs that ack lost and no fetch of unknown effect before the
	// next one after the expiry (24 judged over seeds 1..150, 20 s,
	// all,operator).
	ContractLeaseExpiryJudged Point = "contract.lease.expiry_judged"
	// ContractFailedJudged: a sent write recorded failed was judged
	// against its requests' answers (FailedOnlyWhenCertain).
	ContractFailedJudged Point = "contract.failed.judged"
	// ContractCommandAnswerJudged: a group fetch's, ack's or outbox
	// trim's request answered NotLeader or Unavailable was judged against
	// the brokers' traced proposals (AnswersHonest, CommandAnswersHonest).
	ContractCommandAnswerJudged Point = "contract.command_answer.judged"
	// ContractGenerationJudged: a write the administered stream's brokers
	// applied was judged against the generation it was accepted in
	// (WriteInItsGeneration). Not Sometimes, like the other stream points.
	ContractGenerationJudged Point = "contract.generation.judged"
	// ContractLiveReadJudged: two live reads of one subscriber answered by
	// one leader without a break were judged for the publishes queued in
	// between (EphemeralLiveComplete).
	ContractLiveReadJudged Point = "contract.live_read.judged"
)

// RetentionNearGroupRecords is how close, in records, a retention step
// must come to a consumer group's committed position to count as
// RetentionAtGroupPosition.
const RetentionNearGroupRecords = 4

var declarations = []Declaration{
	{RaftFailover, "a raft group elected a leader other than its previous one", true},
	{LogstoreRecoverPartial, "a broker's store, reopened after a crash, cut whole frames of a transaction without its commit marker", true},
	{LogstoreRecoverTorn, "a broker's store, reopened after a crash, cut a final transaction torn inside a frame", true},
	{LogstoreRecoverSealRestored, "a broker's store, reopened after a crash, kept a transaction whose marker copy was torn and rewrote the copy", false},
	{ClientRequestToDeposedLeader, "a client request reached a broker leading its raft group in a term older than one in which another broker acknowledged a write", true},
	{ClientReadToDeposedLeader, "a state read reached a broker leading its raft group in a term older than one in which another broker acknowledged a write", true},
	{RaftPromotionSecond, "a raft group elected a leader other than its previous one, after an earlier such failover in the run", true},
	{StoreCorruptDetected, "a broker's store refused to open as corrupt (damage before its tail)", true},
	{BrokerFailStop, "a broker fail-stopped on a store error (a refused write or fsync)", true},
	{CommitIfRefused, "a conditional write was refused with the true tail", true},
	{WriteRetried, "a client re-sent a write whose first answer was lost", true},
	{RetryLandedTwice, "a retried write landed twice (its record sits at two offsets of one replica's log)", false},
	{StreamDeleted, "the operator deleted a live stream and every shard applied the delete", false},
	{StreamRecreated, "the operator created a deleted stream again and every shard applied its new generation", false},
	{StreamRequestRefusedDeleted, "a request for a deleted stream was refused naming the deletion", false},
	{StreamReadNewGeneration, "a state read sent after a stream's re-creation was done was answered by the new generation", false},
	{FleetUpgradeStep, "the operator restarted a broker at the rolling upgrade's version", false},
	{FleetFinalized, "the operator's finalize of the rolling upgrade's feature was applied", false},
	{SnapshotSent, "a broker sent a raft snapshot of a group to a follower behind its compaction point or a new member", true},
	{SnapshotInstalled, "a broker installed a received raft snapshot (one store commit)", true},
	{MembershipChange, "a broker applied a raft membership change (ConfChangeV2: a member added, promoted, demoted or removed)", true},
	{BrokerReplaced, "a broker's disk was replaced and the operator began moving every group to a new identity in its slot", true},
	{RelayDelivered, "the outbox relay handed an entry to its downstream sink", true},
	{RelayRedelivered, "the outbox relay handed its sink an entry again (at or below one already delivered in the scope)", true},
	{RelayRestarted, "the outbox relay booted again after a crash", true},
	{RelayFreshStart, "an outbox relay booting again after a crash found no usable position file and read every scope from offset 0", false},
	{RelayTrimmed, "the brokers acknowledged an outbox relay's trim of entries it had delivered and persisted", true},
	{AnswerCopyRefusedJudged, "a write request answered NotLeader or Unavailable was judged against the brokers' traced proposals", true},
	{RetryOwnLanding, "a retried write's own request landed, matched to it by request id", true},
	{TargetedSnapshotInstalled, "a targeted fault struck a broker right after it installed a raft snapshot", true},
	{TargetedGroupAckDurable, "a targeted fault struck a broker right after a consumer-group ack it applied was made durable", true},
	{TargetedCompacted, "a targeted fault struck a broker right after it compacted a raft log or retention dropped a log prefix", false},
	{TargetedMembershipInFlight, "a targeted fault struck a broker right after a membership change reached its raft log, not yet applied", true},
	{TargetedPendingHeld, "a targeted fault struck a broker right after it appended entries while holding unanswered client proposals", true},
	{TargetedPendingHeldYoung, "a targeted fault struck a broker holding unanswered client proposals whose incarnation had made at most 16 proposals", false},
	{TargetedReadsConfirmed, "a targeted fault struck a leader right after its ReadIndex confirmed its leadership for the state reads it held", true},
	{RetentionHeldByGroup, "a leader proposed a retention step shorter than asked because a consumer group had not committed past it", true},
	{PromotionJudged, "a promotion to voter was judged against the proposing leader's committed prefix (from the abstract trace)", true},
	{ChangeWriteAcked, "during a membership change, a majority-connected shard group acknowledged the change probe's write", true},
	{EphemeralDeliveredLive, "a live subscriber of an ephemeral stream read a publish its leader handed it", true},
	{EphemeralCommitRefused, "a commit or commit_if on an ephemeral stream was answered EphemeralStream", true},
	{StreamGroupAcrossRecreate, "a consumer group of the administered stream fetched in one generation and again, answered by the new one, after a re-creation", false},
	{PendingSeqOfEarlierIncarnation, "a restarted broker applied its earlier incarnation's proposal whose seq is that of a write pending in the new one", false},
	{RetentionAtGroupPosition, "a retention step dropped records up to within a few of a consumer group's committed position", true},
	{LearnerPromoted, "a learner (a replaced broker's new identity) was promoted to voter in a raft group", true},
	{ContractLeaseRedeliveryJudged, "two answered fetches that handed out one record were judged by the lease rule", true},
	{ContractLeaseExpiryJudged, "an answered fetch with room was judged for a lease known to have expired unacknowledged", false},
	{ContractFailedJudged, "a sent write recorded failed was judged against its requests' answers", false},
	{ContractCommandAnswerJudged, "a group fetch's, ack's or outbox trim's request answered NotLeader or Unavailable was judged against the brokers' traced proposals", true},
	{ContractGenerationJudged, "a write the administered stream's brokers applied was judged against the generation it was accepted in", false},
	{ContractLiveReadJudged, "two live reads of one subscriber answered by one leader without a break were judged for the publishes queued in between", true},
}

// FaultFired names the point counting faults of the named kind that the
// world applied.
func FaultFired(kind string) Point { return Point(fmt.Sprintf("fault.%s.fired", kind)) }

// Targeted names the point counting targeted faults that struck a broker
// right after it reached the named moment (moment.Moment's spelling).
func Targeted(moment string) Point { return Point("targeted." + moment) }

// FaultEffect names the point counting faults of the named kind that had
// an observable effect (what counts as one is stated by the kind's entry
// in the fault table).
func FaultEffect(kind string) Point { return Point(fmt.Sprintf("fault.%s.effect", kind)) }

// Declared lists every declared point in declaration order.
func Declared() []Declaration { return append([]Declaration(nil), declarations...) }

func init() {
	seen := map[Point]bool{}
	for _, d := range declarations {
		if d.Point == "" || d.Statement == "" || seen[d.Point] {
			panic(fmt.Sprintf("coverage: bad declaration %+v (empty, or a duplicate name)", d))
		}
		seen[d.Point] = true
	}
}
