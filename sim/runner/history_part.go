package runner

import (
	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
)

// historyPart is the part of a run's history one pass of the end checks
// judges, and what the checks read beside it: every replica's logs of the
// part's scopes, the reference log of those scopes, the ledger of the
// brokers' trace (whole: the checks look requests up in it by id) and
// the run's facts the checks need (the topology, the drained groups, the
// latest moment of the whole history). The zero part (part.Scopes nil)
// is the whole history.
type historyPart struct {
	part   properties.HistoryPart
	h      *properties.History
	logs   []properties.ReplicaLog
	ref    properties.ReplicaLog
	ledger *properties.Ledger
	facts  *historyFacts
	// foreign is set when a check met an operation or record whose
	// verdict another part's operations decide (see judgeHistory): the
	// history must then be judged whole.
	foreign bool
}

// historyFacts are what every part of a run's history is judged with.
type historyFacts struct {
	shardCount func(namespace, stream string) (uint32, bool)
	live       []properties.LiveStream
	// drained are the groups the drain brought to their tail, drainRan
	// whether it ran to its end (see drainState).
	drained  []properties.GroupKey
	drainRan bool
	// latestNs is the whole history's latest invocation or answer.
	latestNs int64
	stepsMax int
	// trims are the relay's outbox trims (nil: none judged), each part
	// judging its scopes'; liveComplete judges the live reads of the part
	// that holds every live scope (nil: not judged).
	trims        []properties.OutboxTrimCall
	liveComplete func(h *properties.History) (int, error)
}

// partVerdicts are the errors (and reports) the history checks returned
// over one part, one field or slot per check, and what the part counted.
type partVerdicts struct {
	route    error
	replica  []scopeFindings
	history  []error
	keysLost properties.KeysLost
	ephemeral
	groupsAcked, groupsDelivered error
	lin                          properties.LinearizableReport
	contract                     contractVerdicts
	tally                        historyTally
	// outbox are the outbox checks' errors (outboxErrors) over the part's
	// relayed scopes and the sink's deliveries of them.
	outbox []error
}

// ephemeral are the errors of the ephemeral streams' checks.
type ephemeral struct {
	refusesCommits, liveDelivery error
	// liveComplete is EphemeralLiveComplete's error and liveReads the
	// reads it judged.
	liveComplete error
	liveReads    int
}

// scopeFindings are the replica properties' findings on one scope.
type scopeFindings struct {
	scope    felix.Scope
	findings []properties.ClusterFinding
}

// judge runs every history check over the part (the ephemeral streams'
// only when the part holds every live scope: judgeEphemeral), in the
// order check reports them, and counts what they judged.
func (p *historyPart) judge() partVerdicts {
	var v partVerdicts
	v.route = properties.HistoryWritesOnOwningShard(p.h, p.logs, p.facts.shardCount)
	v.replica = replicaFindings(properties.ClusterScopes(p.logs), p.h)
	for _, c := range historyChecks {
		v.history = append(v.history, c.fn(p))
	}
	v.keysLost = properties.HistoryKeysLost(p.h, &p.ref)
	v.groupsAcked = properties.HistoryGroupAckedNotRedelivered(p.h)
	if p.facts.drainRan {
		v.groupsDelivered = properties.HistoryGroupDeliversEveryRecord(p.h, &p.ref, p.drainedHere())
	}
	v.lin = properties.HistoryLinearizableAt(withoutLiveStreams(p.h, p.facts.live), &p.ref, p.facts.stepsMax, p.facts.latestNs)
	var foreign bool
	v.contract, foreign = contractOf(p.h, p.facts.trims, p.ledger, p.part)
	p.foreign = p.foreign || foreign
	v.tally = tallyOf(p.h)
	countLandedTwice(v.tally.counts, p.h, &p.ref)
	countAnswers(v.tally.counts, p.h, p.ledger)
	return v
}

// judgeEphemeral runs the ephemeral streams' checks over the part, which
// holds every live scope.
func (p *historyPart) judgeEphemeral() ephemeral {
	var e ephemeral
	e.refusesCommits = properties.HistoryEphemeralRefusesCommits(p.h, p.logs, p.facts.live)
	var foreign bool
	e.liveDelivery, foreign = properties.HistoryLiveDeliveryIn(p.h, p.part)
	p.foreign = p.foreign || foreign
	if p.facts.liveComplete != nil {
		e.liveReads, e.liveComplete = p.facts.liveComplete(p.h)
	}
	return e
}

// drainedHere are the drained groups of the part's scopes, in drain order.
func (p *historyPart) drainedHere() []properties.GroupKey {
	if p.part.Scopes == nil {
		return p.facts.drained
	}
	var out []properties.GroupKey
	for _, k := range p.facts.drained {
		if p.holds(k.Scope) {
			out = append(out, k)
		}
	}
	return out
}

// holds reports whether the part holds scope s.
func (p *historyPart) holds(s felix.Scope) bool {
	for _, x := range p.part.Scopes {
		if x == s {
			return true
		}
	}
	return p.part.Scopes == nil
}

// historyTally is what the end of a run counts over its history: the
// operations by outcome, the progress the vacuity check weighs and the
// coverage points the history shows.
type historyTally struct {
	ops      properties.HistoryCounts
	progress Progress
	counts   *coverage.Counts
}

// tallyOf counts h.
func tallyOf(h *properties.History) historyTally {
	t := historyTally{ops: h.Counts(), progress: ProgressOf(h), counts: coverage.New()}
	countHistory(t.counts, h)
	return t
}

// add counts o in.
func (t *historyTally) add(o historyTally) {
	a, b := &t.ops, o.ops
	a.Total, a.OK, a.Refused, a.Failed, a.Unknown, a.Pending = a.Total+b.Total, a.OK+b.OK, a.Refused+b.Refused, a.Failed+b.Failed, a.Unknown+b.Unknown, a.Pending+b.Pending
	t.progress.AckedWrites += o.progress.AckedWrites
	t.progress.CheckedReads += o.progress.CheckedReads
	t.counts.Merge(o.counts)
}
