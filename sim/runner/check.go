package runner

import (
	"fmt"
	"slices"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
)

// check takes the snapshot after quiesce and runs every property over it
// and over the workload's history, recording each failure.
func (r *run) check() {
	snap := r.c.Snapshot()
	h, err := r.wl.History()
	if err != nil {
		r.histErr = err
		return
	}
	h = r.withDrain(h)
	r.hist = h
	logs := ReplicaLogsOf(snap)
	r.res.Violations = append(r.res.Violations, r.inRun.take()...)
	r.res.Violations = append(r.res.Violations, storedLogViolations(r.c)...)
	r.violate(properties.InvariantRoutedToOwningShard, properties.HistoryWritesOnOwningShard(h, logs, r.shardCount))
	r.res.Violations = append(r.res.Violations, ReplicaViolations(properties.ClusterScopes(logs), h)...)
	ref := properties.LongestLogs(logs)
	r.inRun.drops.attach(&ref)
	countLandedTwice(r.counts, h, &ref)
	ledger := r.ledger()
	countAnswers(r.counts, h, ledger)
	for _, c := range historyChecks {
		r.violate(c.name, c.fn(h, logs, &ref, ledger))
	}
	r.res.KeysLost = properties.HistoryKeysLost(h, &ref)
	r.violate(properties.InvariantCommittedNeverLost, r.res.KeysLost.Err())
	r.res.Violations = append(r.res.Violations, ephemeralViolations(r.c.Config().Streams, h, logs)...)
	r.checkGroups(snap, h, &ref)
	r.checkContract(h, ledger)
	r.checkLinearizable(h, &ref)
	// Unless the relay drained, OutboxDelivered is unknown, not a pass:
	// the Quiesce violation names what the relay had left.
	served := relayServed(&ref, relayScopes(r.wl.Config()))
	r.res.Violations = append(r.res.Violations, OutboxViolations(&served, r.relay.Sink().Deliveries(), r.relayDrained)...)
	if r.admin != nil {
		r.violate(properties.InvariantIncarnationsApart, r.admin.check())
	}
	r.changeResult()
}

// ephemeralViolations judges h's operations on the ephemeral streams of
// the topology streams: the commits they must refuse (with the replicas'
// logs, which must hold none of their scopes) and what their live
// subscribers read.
func ephemeralViolations(streams []node.StreamSpec, h *properties.History, logs []properties.ReplicaLog) []Violation {
	var out []Violation
	if err := properties.HistoryEphemeralRefusesCommits(h, logs, liveStreams(streams)); err != nil {
		out = append(out, violationOf(properties.InvariantEphemeralRefusesCommits, err))
	}
	if err := properties.HistoryLiveDelivery(h); err != nil {
		out = append(out, violationOf(properties.InvariantEphemeralLiveDelivery, err))
	}
	return out
}

// OutboxViolations judges what a relay delivered downstream against the
// committed log (ref); OutboxDelivered, that every committed event was
// delivered, only when drained says the relay reached every tail, and
// OutboxKeptUntilRelayed, for the records retention dropped, up to where
// the relay went (every one when drained).
func OutboxViolations(ref *properties.ReplicaLog, ds []properties.OutboxDelivery, drained bool) []Violation {
	var out []Violation
	for _, c := range outboxChecks {
		if c.name == properties.InvariantOutboxDelivered && !drained {
			continue
		}
		if err := c.fn(ref, ds); err != nil {
			out = append(out, violationOf(c.name, err))
		}
	}
	if err := properties.OutboxKeptUntilRelayed(ref, ds, drained); err != nil {
		out = append(out, violationOf(properties.InvariantOutboxKeptUntilRelayed, err))
	}
	return out
}

// relayServed is ref restricted to the scopes the relay serves: the
// outbox checks judge those (the administered stream's, which a delete
// empties, are not the relay's; see streamadmin.go).
func relayServed(ref *properties.ReplicaLog, scopes []felix.Scope) properties.ReplicaLog {
	out := properties.ReplicaLog{Node: ref.Node}
	for _, v := range ref.Scopes {
		if slices.Contains(scopes, v.Scope) {
			out.Scopes = append(out.Scopes, v)
		}
	}
	return out
}

// outboxCheck is one property of what the relay delivered downstream.
type outboxCheck struct {
	name properties.InvariantName
	fn   func(ref *properties.ReplicaLog, ds []properties.OutboxDelivery) error
}

// outboxChecks judge the relay's sink against the committed log.
var outboxChecks = []outboxCheck{
	{properties.InvariantOutboxNothingUncommitted, properties.OutboxNothingUncommitted},
	{properties.InvariantOutboxOffsetMatchesState, properties.OutboxOffsetMatchesState},
	{properties.InvariantOutboxInOrder, properties.OutboxInOrder},
	{properties.InvariantOutboxFromStart, properties.OutboxFromStart},
	{properties.InvariantOutboxDelivered, properties.OutboxDelivered},
}

// shardCount is the run's topology as the routing check reads it.
func (r *run) shardCount(namespace, stream string) (uint32, bool) {
	for _, s := range topology(&r.opts) {
		if s.Namespace == namespace && s.Stream == stream {
			return s.Shards, true
		}
	}
	return 0, false
}

// ReplicaViolations runs the replica properties on every scope and folds
// the findings into one Violation per invariant (the first scope's
// message, and how many more scopes failed it; every scope's finding is
// kept for finding the earliest), in first-failure order.
func ReplicaViolations(scopes []properties.ClusterScope, h *properties.History) []Violation {
	acks := properties.HistoryAcks(h)
	written := properties.HistoryWrittenConditionals(h)
	intent := properties.HistoryIntents(h)
	var out []Violation
	index := map[properties.InvariantName]int{}
	more := map[properties.InvariantName]int{}
	for i := range scopes {
		cs := &scopes[i]
		in := intent
		if cs.Scope.Tenant == livenessTenant {
			in = nil // the probe's records are in no history
		}
		for _, f := range properties.CheckClusterScope(cs, acks[cs.Scope], written[cs.Scope], in) {
			k, seen := index[f.Invariant]
			if !seen {
				k, index[f.Invariant] = len(out), len(out)
				out = append(out, violationOf(f.Invariant, f.Err))
			} else {
				out[k].addFindings(f.Err)
			}
			more[f.Invariant]++
		}
	}
	for i := range out {
		if n := more[out[i].Invariant] - 1; n > 0 {
			out[i].Message += fmt.Sprintf("; and %d more scope(s)", n)
		}
	}
	return out
}

// historyCheck is one history property with the name a violation carries.
// It reads the history, every replica's log, the reference log and the
// ledger of the brokers' trace (which proposal and landing is which
// request's).
type historyCheck struct {
	name properties.InvariantName
	fn   func(h *properties.History, replicas []properties.ReplicaLog, ref *properties.ReplicaLog, l *properties.Ledger) error
}

// historyChecks are the properties over the workload's history, in the
// order they run and report.
var historyChecks = []historyCheck{
	{properties.InvariantCommittedNeverLost, func(h *properties.History, rs []properties.ReplicaLog, _ *properties.ReplicaLog, _ *properties.Ledger) error {
		return properties.HistoryAckedOnEveryReplica(h, rs)
	}},
	{properties.InvariantRefusedBeforeSending, func(h *properties.History, rs []properties.ReplicaLog, _ *properties.ReplicaLog, _ *properties.Ledger) error {
		return properties.HistoryNotSentWroteNothing(h, rs)
	}},
	{properties.InvariantFailedWriteLeftNoTrace, func(h *properties.History, _ []properties.ReplicaLog, _ *properties.ReplicaLog, l *properties.Ledger) error {
		return properties.HistoryFailedWroteNothing(h, l)
	}},
	{properties.InvariantLandsAtMostOncePerDelivery, func(h *properties.History, _ []properties.ReplicaLog, _ *properties.ReplicaLog, l *properties.Ledger) error {
		return properties.HistoryLandsAtMostOncePerDelivery(h, l)
	}},
	{properties.InvariantAnswersHonest, func(h *properties.History, _ []properties.ReplicaLog, _ *properties.ReplicaLog, l *properties.Ledger) error {
		return properties.HistoryAnswersHonest(h, l)
	}},
	{properties.InvariantLandingMatchesRequest, func(h *properties.History, _ []properties.ReplicaLog, ref *properties.ReplicaLog, l *properties.Ledger) error {
		return properties.HistoryLandingsMatchRequests(h, l, ref)
	}},
	{properties.InvariantConditionalWrites, func(h *properties.History, _ []properties.ReplicaLog, ref *properties.ReplicaLog, _ *properties.Ledger) error {
		return properties.HistoryConditionalWrites(h, ref)
	}},
	{properties.InvariantLinearizableRead, func(h *properties.History, _ []properties.ReplicaLog, ref *properties.ReplicaLog, _ *properties.Ledger) error {
		return properties.HistoryReadsLinearizable(h, ref)
	}},
	{properties.InvariantMonotonicRead, func(h *properties.History, _ []properties.ReplicaLog, _ *properties.ReplicaLog, _ *properties.Ledger) error {
		return properties.HistoryReadsMonotonic(h)
	}},
	{properties.InvariantLinearizableWrite, func(h *properties.History, _ []properties.ReplicaLog, ref *properties.ReplicaLog, _ *properties.Ledger) error {
		return properties.HistoryWritesRespectRealTime(h, ref)
	}},
	{properties.InvariantVersionIsOffset, func(h *properties.History, _ []properties.ReplicaLog, ref *properties.ReplicaLog, _ *properties.Ledger) error {
		return properties.HistoryReadVersionIsOffset(h, ref)
	}},
	{properties.InvariantNoPartialCommit, func(h *properties.History, _ []properties.ReplicaLog, ref *properties.ReplicaLog, _ *properties.Ledger) error {
		return properties.HistoryReadersSeeWholeRecords(h, ref)
	}},
}
