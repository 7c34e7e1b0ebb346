package runner

import (
	"fmt"
	"slices"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
)

// check takes the snapshot after quiesce (its outline: the logs are read
// a part at a time) and runs every property over it and over the
// workload's history (judgeHistory: in parts of whole scopes), recording
// each failure.
func (r *run) check() {
	snap := r.c.Outline()
	j, err := r.judgeHistory(snap)
	if err != nil {
		r.histErr = err
		return
	}
	r.judged = j
	r.res.Violations = append(r.res.Violations, r.inRun.take()...)
	r.res.Violations = append(r.res.Violations, storedLogViolations(r.c)...)
	r.violate(properties.InvariantRoutedToOwningShard, j.route)
	r.res.Violations = append(r.res.Violations, foldReplicaFindings(j.replica)...)
	for i, c := range historyChecks {
		r.violate(c.name, j.history[i])
	}
	r.res.KeysLost = j.keysLost
	r.violate(properties.InvariantCommittedNeverLost, r.res.KeysLost.Err())
	r.res.Violations = append(r.res.Violations, ephemeralViolations(j.ephemeral)...)
	r.checkGroups(snap, j)
	r.checkContract(j)
	r.checkLinearizable(j.lin)
	r.res.Violations = append(r.res.Violations, outboxViolations(j.outbox)...)
	if r.admin != nil {
		r.violate(properties.InvariantIncarnationsApart, r.admin.check())
	}
	r.changeResult()
}

// ephemeralViolations are the ephemeral streams' checks' findings: the
// commits they must refuse and what their live subscribers read.
func ephemeralViolations(e ephemeral) []Violation {
	var out []Violation
	if e.refusesCommits != nil {
		out = append(out, violationOf(properties.InvariantEphemeralRefusesCommits, e.refusesCommits))
	}
	if e.liveDelivery != nil {
		out = append(out, violationOf(properties.InvariantEphemeralLiveDelivery, e.liveDelivery))
	}
	return out
}

// OutboxViolations judges what a relay delivered downstream against the
// committed log (ref); OutboxDelivered, that every committed event was
// delivered, only when drained says the relay reached every tail, and
// OutboxKeptUntilRelayed, for the records retention dropped, up to where
// the relay went (every one when drained).
func OutboxViolations(ref *properties.ReplicaLog, ds []properties.OutboxDelivery, drained bool) []Violation {
	return outboxViolations(outboxErrors(ref, ds, drained))
}

// outboxErrors are the outbox checks' errors over ref and ds, one per
// check of outboxChecks, then OutboxKeptUntilRelayed's. Unless the relay
// drained, OutboxDelivered is unknown, not a pass (nil here): the Quiesce
// violation names what the relay had left.
func outboxErrors(ref *properties.ReplicaLog, ds []properties.OutboxDelivery, drained bool) []error {
	var out []error
	for _, c := range outboxChecks {
		if c.name == properties.InvariantOutboxDelivered && !drained {
			out = append(out, nil)
			continue
		}
		out = append(out, c.fn(ref, ds))
	}
	return append(out, properties.OutboxKeptUntilRelayed(ref, ds, drained))
}

// outboxViolations are the violations of the outbox checks' errors (outboxErrors).
func outboxViolations(errs []error) []Violation {
	var out []Violation
	for i, err := range errs {
		name := properties.InvariantOutboxKeptUntilRelayed
		if i < len(outboxChecks) {
			name = outboxChecks[i].name
		}
		if err != nil {
			out = append(out, violationOf(name, err))
		}
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

// shardCounter is the run's topology as the routing check reads it.
func (r *run) shardCounter() func(namespace, stream string) (uint32, bool) {
	streams := topology(&r.opts)
	return func(namespace, stream string) (uint32, bool) {
		for _, s := range streams {
			if s.Namespace == namespace && s.Stream == stream {
				return s.Shards, true
			}
		}
		return 0, false
	}
}

// ReplicaViolations runs the replica properties on every scope and folds
// the findings into one Violation per invariant (the first scope's
// message, and how many more scopes failed it; every scope's finding is
// kept for finding the earliest), in first-failure order.
func ReplicaViolations(scopes []properties.ClusterScope, h *properties.History) []Violation {
	return foldReplicaFindings(replicaFindings(scopes, h))
}

// replicaFindings runs the replica properties on every scope (ascending),
// with the writes h shows acknowledged and written on it and the intents
// of h's writes.
func replicaFindings(scopes []properties.ClusterScope, h *properties.History) []scopeFindings {
	acks := properties.HistoryAcks(h)
	written := properties.HistoryWrittenConditionals(h)
	intent := properties.HistoryIntents(h)
	var out []scopeFindings
	for i := range scopes {
		cs := &scopes[i]
		in := intent
		if cs.Scope.Tenant == livenessTenant {
			in = nil // the probe's records are in no history
		}
		if fs := properties.CheckClusterScope(cs, acks[cs.Scope], written[cs.Scope], in); len(fs) > 0 {
			out = append(out, scopeFindings{scope: cs.Scope, findings: fs})
		}
	}
	return out
}

// foldReplicaFindings folds scopes' findings (ascending by scope) into
// one Violation per invariant, in first-failure order.
func foldReplicaFindings(scopes []scopeFindings) []Violation {
	var out []Violation
	index := map[properties.InvariantName]int{}
	more := map[properties.InvariantName]int{}
	for _, sf := range scopes {
		for _, f := range sf.findings {
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
// It reads a part of the history (the whole, or a few scopes' operations:
// see judgeHistory) with every replica's logs of those scopes, their
// reference log and the ledger of the brokers' trace (which proposal and
// landing is which request's).
type historyCheck struct {
	name properties.InvariantName
	fn   func(p *historyPart) error
}

// historyChecks are the properties over the workload's history, in the
// order they run and report.
var historyChecks = []historyCheck{
	{properties.InvariantCommittedNeverLost, func(p *historyPart) error { return properties.HistoryAckedOnEveryReplica(p.h, p.logs) }},
	{properties.InvariantRefusedBeforeSending, func(p *historyPart) error { return properties.HistoryNotSentWroteNothing(p.h, p.logs) }},
	{properties.InvariantFailedWriteLeftNoTrace, func(p *historyPart) error { return properties.HistoryFailedWroteNothing(p.h, p.ledger) }},
	{properties.InvariantLandsAtMostOncePerDelivery, func(p *historyPart) error {
		return properties.HistoryLandsAtMostOncePerDelivery(p.h, p.ledger)
	}},
	{properties.InvariantAnswersHonest, func(p *historyPart) error { return properties.HistoryAnswersHonest(p.h, p.ledger) }},
	{properties.InvariantLandingMatchesRequest, func(p *historyPart) error {
		err, foreign := properties.HistoryLandingsMatchRequestsIn(p.h, p.ledger, &p.ref, p.part)
		p.foreign = p.foreign || foreign
		return err
	}},
	{properties.InvariantConditionalWrites, func(p *historyPart) error { return properties.HistoryConditionalWrites(p.h, &p.ref) }},
	{properties.InvariantLinearizableRead, func(p *historyPart) error { return properties.HistoryReadsLinearizable(p.h, &p.ref) }},
	{properties.InvariantMonotonicRead, func(p *historyPart) error { return properties.HistoryReadsMonotonic(p.h) }},
	{properties.InvariantLinearizableWrite, func(p *historyPart) error { return properties.HistoryWritesRespectRealTime(p.h, &p.ref) }},
	{properties.InvariantVersionIsOffset, func(p *historyPart) error { return properties.HistoryReadVersionIsOffset(p.h, &p.ref) }},
	{properties.InvariantNoPartialCommit, func(p *historyPart) error { return properties.HistoryReadersSeeWholeRecords(p.h, &p.ref) }},
}
