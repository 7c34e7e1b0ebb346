package properties

import (
	"fmt"
	"strings"
)

// InvariantName is an invariant's one name: the registry's, the one a
// violation carries and, for the model's invariants, the TLA+ definition's.
// The empty name is invalid.
type InvariantName string

// The registered invariants' names; the registry (Invariants) says what
// each states, its family and the checks that report it. No other file
// spells these names: a test scans the sources for it.
const (
	InvariantNoPartialCommit            InvariantName = "NoPartialCommit"
	InvariantVersionIsOffset            InvariantName = "VersionIsOffset"
	InvariantStateMatchesLog            InvariantName = "StateMatchesLog"
	InvariantCommittedNeverLost         InvariantName = "CommittedNeverLost"
	InvariantCommittedPrefixAgreement   InvariantName = "CommittedPrefixAgreement"
	InvariantConditionalWrites          InvariantName = "ConditionalWrites"
	InvariantRefusedBeforeSending       InvariantName = "RefusedBeforeSending"
	InvariantFailedWriteLeftNoTrace     InvariantName = "FailedWriteLeftNoTrace"
	InvariantLandsAtMostOncePerDelivery InvariantName = "LandsAtMostOncePerDelivery"
	InvariantAnswersHonest              InvariantName = "AnswersHonest"
	InvariantLandingMatchesRequest      InvariantName = "LandingMatchesRequest"
	InvariantLinearizableRead           InvariantName = "LinearizableRead"
	InvariantMonotonicRead              InvariantName = "MonotonicRead"
	InvariantLinearizableWrite          InvariantName = "LinearizableWrite"
	InvariantLinearizable               InvariantName = "Linearizable"
	InvariantRaftLogTermsMonotonic      InvariantName = "RaftLogTermsMonotonic"
	InvariantRaftLogsAgree              InvariantName = "RaftLogsAgree"
	InvariantHardStateMonotonic         InvariantName = "HardStateMonotonic"
	InvariantRoutedToOwningShard        InvariantName = "RoutedToOwningShard"
	InvariantOutboxDelivered            InvariantName = "OutboxDelivered"
	InvariantOutboxInOrder              InvariantName = "OutboxInOrder"
	InvariantOutboxNothingUncommitted   InvariantName = "OutboxNothingUncommitted"
	InvariantOutboxOffsetMatchesState   InvariantName = "OutboxOffsetMatchesState"
	InvariantIncarnationsApart          InvariantName = "IncarnationsApart"
	InvariantEphemeralRefusesCommits    InvariantName = "EphemeralRefusesCommits"
	InvariantEphemeralLiveDelivery      InvariantName = "EphemeralLiveDelivery"
	InvariantTraceNotInModel            InvariantName = "TraceNotInModel"
	InvariantGroupDeliversEveryRecord   InvariantName = "GroupDeliversEveryRecord"
	InvariantGroupAckedNotRedelivered   InvariantName = "GroupAckedNotRedelivered"
	InvariantGroupPositionMonotonic     InvariantName = "GroupPositionMonotonic"
	InvariantGroupPositionInSnapshot    InvariantName = "GroupPositionInSnapshot"
	InvariantGroupStateAgreement        InvariantName = "GroupStateAgreement"
	InvariantStoreMatchesMemory         InvariantName = "StoreMatchesMemory"
	InvariantLiveness                   InvariantName = "Liveness"
	InvariantQuiesce                    InvariantName = "Quiesce"
	InvariantCrash                      InvariantName = "Crash"
	InvariantEvidence                   InvariantName = "Evidence"
	InvariantGroupRecordsRetained       InvariantName = "GroupRecordsRetained"
	InvariantOutboxKeptUntilRelayed     InvariantName = "OutboxKeptUntilRelayed"
	InvariantPromotedCaughtUp           InvariantName = "PromotedCaughtUp"
	InvariantLivenessDuringChange       InvariantName = "LivenessDuringChange"
	InvariantGroupLeaseHonored          InvariantName = "GroupLeaseHonored"
	InvariantFailedOnlyWhenCertain      InvariantName = "FailedOnlyWhenCertain"
	InvariantOutboxFromStart            InvariantName = "OutboxFromStart"
	InvariantWriteInItsGeneration       InvariantName = "WriteInItsGeneration"
	InvariantEphemeralLiveComplete      InvariantName = "EphemeralLiveComplete"
	InvariantStoreKeepsAcknowledged     InvariantName = "StoreKeepsAcknowledged"
	InvariantStoreRoundsWhole           InvariantName = "StoreRoundsWhole"
)

// Errorf returns an error naming the invariant: "Name: " and the message.
func (n InvariantName) Errorf(format string, args ...any) error {
	return fmt.Errorf("%s: %w", n, fmt.Errorf(format, args...))
}

// Family is the class of failure an invariant's violation is; the CLI's
// exit code tells the families apart. The zero value is invalid.
type Family uint8

// Invariant families.
const (
	familyInvalid Family = iota
	// FamilySafety: something bad happened (a record lost, a stale read);
	// checked throughout and on what the run left behind.
	FamilySafety
	// FamilyLiveness: something good did not happen within its budget
	// after the faults healed (no leader, a commit never written).
	FamilyLiveness
	// FamilyCrash: the run has no verdict: the simulated system panicked,
	// or the run gave its checks nothing to judge.
	FamilyCrash
	familyEnd
)

var familyNames = [...]string{"invalid", "safety", "liveness", "crash"}

// String names the family in lower case.
func (f Family) String() string {
	if f < familyEnd {
		return familyNames[f]
	}
	return fmt.Sprintf("Family(%d)", uint8(f))
}

// Invariant is one registry entry.
type Invariant struct {
	Name InvariantName
	// Statement says in one line what holds.
	Statement string
	Family    Family
	// Checks name the functions that report a violation of it, as
	// package.Func or package.Type.method (a test finds each in the source).
	Checks []string
}

// registry is every invariant, in the order --list-invariants prints
// them: the model's six first, in the order the TLA+ configs list them;
// later additions at the end.
var registry = mustRegistry([]Invariant{
	{
		Name:      InvariantNoPartialCommit,
		Statement: "no reader, on any broker, at any time, sees a commit's event without its state changes or its state changes without its event",
		Family:    FamilySafety,
		Checks:    []string{"properties.NoPartialCommit", "properties.HistoryReadersSeeWholeRecords", "properties.AppliedWhole", "tla.checker.noPartialCommit", "tla.traceGroup.readRules", "tla.traceGroup.subscriberRule"},
	},
	{
		Name:      InvariantVersionIsOffset,
		Statement: "a state read's version is the offset of the record that wrote the value, and that record carries the value",
		Family:    FamilySafety,
		Checks:    []string{"properties.VersionIsOffset", "properties.HistoryReadVersionIsOffset", "tla.checker.versionIsOffset", "tla.traceGroup.readRules"},
	},
	{
		Name:      InvariantStateMatchesLog,
		Statement: "every replica's state view equals the fold of its applied log",
		Family:    FamilySafety,
		Checks:    []string{"properties.StateMatchesLog", "tla.checker.stateMatchesLog", "tla.traceGroup.readRules"},
	},
	{
		Name:      InvariantCommittedNeverLost,
		Statement: "an acknowledged record survives every failover at its acknowledged offset, on every replica that reaches it",
		Family:    FamilySafety,
		Checks:    []string{"properties.CommittedNeverLost", "properties.HistoryAckedOnEveryReplica", "properties.HistoryKeysLost", "tla.checker.committedNeverLost", "tla.traceGroup.committedNeverLost"},
	},
	{
		Name:      InvariantCommittedPrefixAgreement,
		Statement: "replicas never disagree on a committed offset",
		Family:    FamilySafety,
		Checks:    []string{"properties.CommittedPrefixAgreement", "tla.checker.committedPrefixAgreement"},
	},
	{
		Name:      InvariantConditionalWrites,
		Statement: "a refused commit_if/publish_if writes nothing and reports the true tail; a written one lands exactly at its expected offset",
		Family:    FamilySafety,
		Checks:    []string{"properties.ConditionalWrites", "properties.HistoryConditionalWrites", "tla.checker.conditionalWrites"},
	},
	{
		Name:      InvariantRefusedBeforeSending,
		Statement: "a write the client refused before sending anything leaves no record on any replica",
		Family:    FamilySafety,
		Checks:    []string{"properties.HistoryNotSentWroteNothing"},
	},
	{
		Name:      InvariantFailedWriteLeftNoTrace,
		Statement: "a sent write recorded failed (a refusal every copy of the request meets) leaves no record: none of its requests, matched by id, landed on any broker",
		Family:    FamilySafety,
		Checks:    []string{"properties.HistoryFailedWroteNothing"},
	},
	{
		Name:      InvariantLandsAtMostOncePerDelivery,
		Statement: "a write request (each attempt and each retry its own) is proposed, and lands at distinct offsets, no more times than the network delivered copies of it to brokers: a broker proposes one copy at most once",
		Family:    FamilySafety,
		Checks:    []string{"properties.HistoryLandsAtMostOncePerDelivery"},
	},
	{
		Name:      InvariantAnswersHonest,
		Statement: "an answer speaks truly for the copy of the request it answers: NotLeader or Unavailable means the answering broker did not propose it (a write, a group fetch or ack, an outbox trim), a refusal or another error (but Timeout and Internal) that a write wrote nothing, written at an offset that it landed there",
		Family:    FamilySafety,
		Checks:    []string{"properties.HistoryAnswersHonest", "properties.CommandAnswersHonest"},
	},
	{
		Name:      InvariantLandingMatchesRequest,
		Statement: "every record a broker writes is the landing of a client request a broker proposed, on that request's shard, holding what the request carried; every request proposed for a history's client is one its history records",
		Family:    FamilySafety,
		Checks:    []string{"properties.HistoryLandingsMatchRequests"},
	},
	{
		Name:      InvariantLinearizableRead,
		Statement: "a state read returns the value of a log prefix holding every write acknowledged before the read was invoked",
		Family:    FamilySafety,
		Checks:    []string{"properties.HistoryReadsLinearizable"},
	},
	{
		Name:      InvariantMonotonicRead,
		Statement: "a state read invoked after another read of the same key completed returns a version at least as new",
		Family:    FamilySafety,
		Checks:    []string{"properties.HistoryReadsMonotonic"},
	},
	{
		Name:      InvariantLinearizableWrite,
		Statement: "a write acknowledged before another write was invoked sits at a lower offset in its shard's log",
		Family:    FamilySafety,
		Checks:    []string{"properties.HistoryWritesRespectRealTime"},
	},
	{
		Name:      InvariantLinearizable,
		Statement: "per shard, writes, state reads, subscribe and group-fetch reads, group acks and the final log have a linearization (an acked offset is never handed out after its ack); a write of unknown outcome lands any time after its invocation, or never",
		Family:    FamilySafety,
		Checks:    []string{"properties.HistoryLinearizable"},
	},
	{
		Name:      InvariantRaftLogTermsMonotonic,
		Statement: "the terms along every broker's stored raft log never decrease, and none exceeds its stored term",
		Family:    FamilySafety,
		Checks:    []string{"properties.StoredLogTermsMonotonic"},
	},
	{
		Name:      InvariantRaftLogsAgree,
		Statement: "every two brokers' stored raft logs of a group hold the same entry at every index both have committed",
		Family:    FamilySafety,
		Checks:    []string{"properties.StoredLogsAgree"},
	},
	{
		Name:      InvariantHardStateMonotonic,
		Statement: "a broker's raft term, vote and commit index never move backwards, across restarts included",
		Family:    FamilySafety,
		Checks:    []string{"properties.HardStateNeverBackwards"},
	},
	{
		Name:      InvariantRoutedToOwningShard,
		Statement: "a record lands on the shard its entity key routes to by the documented routing function",
		Family:    FamilySafety,
		Checks:    []string{"properties.HistoryWritesOnOwningShard"},
	},
	{
		Name:      InvariantOutboxDelivered,
		Statement: "the relay's downstream sink receives every committed record's event at least once",
		Family:    FamilySafety,
		Checks:    []string{"properties.OutboxDelivered"},
	},
	{
		Name:      InvariantOutboxInOrder,
		Statement: "per scope, the sink first receives each offset only after every committed offset below it (redelivery allowed, skipping ahead not)",
		Family:    FamilySafety,
		Checks:    []string{"properties.OutboxInOrder"},
	},
	{
		Name:      InvariantOutboxNothingUncommitted,
		Statement: "the sink never receives an event at an offset its scope's committed log does not hold",
		Family:    FamilySafety,
		Checks:    []string{"properties.OutboxNothingUncommitted"},
	},
	{
		Name:      InvariantOutboxOffsetMatchesState,
		Statement: "every event the sink receives is the event of the committed record at the offset it came with, the version of that record's state",
		Family:    FamilySafety,
		Checks:    []string{"properties.OutboxOffsetMatchesState"},
	},
	{
		Name:      InvariantIncarnationsApart,
		Statement: "a stream deleted and created again is a new stream: no read or consumer-group fetch of the new generation returns what an earlier one held, its groups restart at its start, and a deleted stream accepts no write",
		Family:    FamilySafety,
		Checks:    []string{"properties.IncarnationsApart"},
	},
	{
		Name:      InvariantEphemeralRefusesCommits,
		Statement: "an ephemeral stream refuses every commit and commit_if (EphemeralStream) and writes nothing: no replica holds a record of it and no live subscriber reads a commit's event",
		Family:    FamilySafety,
		Checks:    []string{"properties.HistoryEphemeralRefusesCommits"},
	},
	{
		Name:      InvariantEphemeralLiveDelivery,
		Statement: "a live subscriber of an ephemeral stream reads only its own scope's publishes, made while it was live, each at most once per delivered copy of its request, in publish order within one read",
		Family:    FamilySafety,
		Checks:    []string{"properties.HistoryLiveDelivery"},
	},
	{
		Name:      InvariantTraceNotInModel,
		Statement: "every step a broker takes (its abstract trace) is explained by an action of the model FelixAtomicCommit",
		Family:    FamilySafety,
		Checks:    []string{"tla.TraceValidator.Step"},
	},
	{
		Name:      InvariantGroupDeliversEveryRecord,
		Statement: "every record committed to a shard (enqueued or published) is handed out to each consumer group drained after heal at least once, with its event",
		Family:    FamilySafety,
		Checks:    []string{"properties.HistoryGroupDeliversEveryRecord"},
	},
	{
		Name:      InvariantGroupAckedNotRedelivered,
		Statement: "a consumer group never hands out an offset again once an ack of it has succeeded (a lease ends at its ack or its expiry, and only an expired, unacked lease is handed out again)",
		Family:    FamilySafety,
		Checks:    []string{"properties.HistoryGroupAckedNotRedelivered"},
	},
	{
		Name:      InvariantGroupPositionMonotonic,
		Statement: "a consumer group's committed position never moves backwards on any broker, across restarts and failovers included",
		Family:    FamilySafety,
		Checks:    []string{"properties.GroupPositionsNeverBackwards"},
	},
	{
		Name:      InvariantGroupPositionInSnapshot,
		Statement: "a broker that installs a raft snapshot (lagging, or a replacement) holds every consumer group a replica made durable at or below the snapshot's index, at a committed position no lower",
		Family:    FamilySafety,
		Checks:    []string{"properties.GroupPositionsSurviveSnapshot"},
	},
	{
		Name:      InvariantGroupStateAgreement,
		Statement: "after quiesce every replica holds the same consumer groups: position, next offset to hand out and leases",
		Family:    FamilySafety,
		Checks:    []string{"properties.GroupStatesAgree"},
	},
	{
		Name:      InvariantStoreMatchesMemory,
		Statement: "a broker's store, read back from the bytes a crash would leave as a restart reads it, holds what its memory holds once a round is durable: raft term, vote, log and applied index, fleet features, stream incarnation and membership, and every scope's log, state, consumer groups and outbox (checked at every boot and at a sample of durable rounds)",
		Family:    FamilySafety,
		Checks:    []string{"properties.StoreMatchesMemory"},
	},
	{
		Name:      InvariantLiveness,
		Statement: "after faults heal, every broker runs, every shard elects a leader and accepts a commit within the liveness budget",
		Family:    FamilyLiveness,
		Checks:    []string{"runner.run.liveness"},
	},
	{
		Name:      InvariantQuiesce,
		Statement: "after liveness, every client call completes and every running broker catches up within the quiesce budget",
		Family:    FamilyLiveness,
		Checks:    []string{"runner.run.quiesce"},
	},
	{
		Name:      InvariantCrash,
		Statement: "the simulated system never panics",
		Family:    FamilyCrash,
		Checks:    []string{"runner.run.execute"},
	},
	{
		Name:      InvariantEvidence,
		Statement: "a run gives its checks something to judge: at least one acknowledged write or checked read (a run that judged nothing has no verdict, never a pass)",
		Family:    FamilyCrash,
		Checks:    []string{"runner.run.checkEvidence"},
	},
	{
		Name:      InvariantGroupRecordsRetained,
		Statement: "retention never drops a record a live consumer group has not committed: on every replica, after every retention step, each group's committed position is at or above its scope's first retained offset, and no group is found stranded below the window",
		Family:    FamilySafety,
		Checks:    []string{"properties.GroupsWithinWindow", "properties.GroupStranded"},
	},
	{
		Name:      InvariantOutboxKeptUntilRelayed,
		Statement: "retention never deletes an outbox entry the relay has not delivered: the sink receives the event of every record retention dropped from a relayed scope's log",
		Family:    FamilySafety,
		Checks:    []string{"properties.OutboxKeptUntilRelayed"},
	},
	{
		Name:      InvariantPromotedCaughtUp,
		Statement: "a broker is made a voter of a raft group only when its stored log holds the leader's committed prefix as of the proposal: every index up to the leader's commit mark, with the leader's terms",
		Family:    FamilySafety,
		Checks:    []string{"properties.PromotedCaughtUp"},
	},
	{
		Name:      InvariantLivenessDuringChange,
		Statement: "while a membership change is in flight, a shard group whose voters' majority (in every configuration a running broker holds) is running and connected to each other and to the client acknowledges a write within the change-liveness budget",
		Family:    FamilyLiveness,
		Checks:    []string{"properties.WritesAckedDuringChange"},
	},
	{
		Name:      InvariantGroupLeaseHonored,
		Statement: "a consumer group hands a record out again only once the lease it was last handed out under has expired (by the time its fetch carried, as the answers report it), and a fetch with room hands out a lease known expired and unacknowledged",
		Family:    FamilySafety,
		Checks:    []string{"properties.HistoryGroupLeases"},
	},
	{
		Name:      InvariantFailedOnlyWhenCertain,
		Statement: "a client records a sent write failed only when a broker answered one of its requests with a refusal every copy meets (InvalidRequest, NotOnOwningShard); a copy refused NotLeader, Unavailable or another error leaves the outcome unknown",
		Family:    FamilySafety,
		Checks:    []string{"properties.HistoryFailedOnlyWhenCertain"},
	},
	{
		Name:      InvariantOutboxFromStart,
		Statement: "the relay hands the sink each scope's events from the outbox's start: the first delivery is the scope's first record, and no offset is first delivered before one below it that retention dropped from the log but the outbox still held",
		Family:    FamilySafety,
		Checks:    []string{"properties.OutboxFromStart"},
	},
	{
		Name:      InvariantWriteInItsGeneration,
		Statement: "a write lands only in the live generation of its stream that accepted it: one a leader accepted before the stream's delete and applied after the delete's marker is refused, in the deleted generation and in the next one",
		Family:    FamilySafety,
		Checks:    []string{"properties.WritesInTheirGeneration"},
	},
	{
		Name:      InvariantEphemeralLiveComplete,
		Statement: "a live subscriber's read drains its queue: a read with room, answered by the broker that acknowledged a publish to its scope while the subscriber was live there, returns that publish (an empty answer means the subscriber is caught up)",
		Family:    FamilySafety,
		Checks:    []string{"properties.HistoryLiveReadsComplete"},
	},
	{
		Name:      InvariantStoreKeepsAcknowledged,
		Statement: "a broker's store, reopened after a crash, holds what the broker acknowledged before it: its raft log through the last index it acknowledged (a MsgAppResp, or a leader's own append) unless it recovered a later term, and the applied index it answered clients from (checked at every boot, before raft starts; term, vote and commit are HardStateMonotonic's, consumer positions GroupPositionMonotonic's)",
		Family:    FamilySafety,
		Checks:    []string{"properties.StoreKeepsAcknowledged"},
	},
	{
		Name:      InvariantStoreRoundsWhole,
		Statement: "a broker's store, reopened after a crash, holds whole store commits: every scope's position row has the log rows at both ends of the window it names and none past it (checked at every boot)",
		Family:    FamilySafety,
		Checks:    []string{"properties.StoreRoundsWhole"},
	},
})

// Invariants returns the registry, in listing order; the caller owns the
// copy.
func Invariants() []Invariant {
	out := make([]Invariant, len(registry))
	for i, inv := range registry {
		inv.Checks = append([]string(nil), inv.Checks...)
		out[i] = inv
	}
	return out
}

// LookupInvariant returns the registry's entry for name, or an error if
// no invariant of that name is registered.
func LookupInvariant(name InvariantName) (Invariant, error) {
	for _, inv := range registry {
		if inv.Name == name {
			return inv, nil
		}
	}
	return Invariant{}, fmt.Errorf("invariant %q refused: not in the registry (felixsim run --list-invariants lists it)", string(name))
}

// checkRegistry refuses a registry with an empty or repeated name, an
// invalid family, a statement that is empty or not one line, or no check.
func checkRegistry(list []Invariant) error {
	seen := map[InvariantName]bool{}
	for _, inv := range list {
		switch {
		case inv.Name == "":
			return fmt.Errorf("invariant registry refused: an entry has no name")
		case seen[inv.Name]:
			return fmt.Errorf("invariant registry refused: %s is registered twice", string(inv.Name))
		case inv.Family == familyInvalid || inv.Family >= familyEnd:
			return fmt.Errorf("invariant registry refused: %s has invalid family %d", string(inv.Name), uint8(inv.Family))
		case inv.Statement == "" || strings.Contains(inv.Statement, "\n"):
			return fmt.Errorf("invariant registry refused: %s's statement must be one non-empty line", string(inv.Name))
		case len(inv.Checks) == 0:
			return fmt.Errorf("invariant registry refused: %s names no check that reports it", string(inv.Name))
		}
		seen[inv.Name] = true
	}
	return nil
}

// mustRegistry returns list, panicking if checkRegistry refuses it: the
// registry is code, so a bad entry is a programmer error.
func mustRegistry(list []Invariant) []Invariant {
	if err := checkRegistry(list); err != nil {
		panic(err)
	}
	return list
}
