package runner

import (
	"runtime"
	"slices"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/workload"
)

// The end checks judge the workload's history a part at a time: a part
// is a run of whole scopes (ascending) holding at most partOpsMax
// operations, or one scope that holds more, so that what they hold at
// once is a part's operations, logs, ledger and deliveries, not the
// run's. A long run's history, the relay sink's record and the ledger of
// the brokers' steps wait on disk, each line tagged, and a part reads
// back its own (workload.ScopeHistory, relay.Sink.ScopeDeliveries,
// LedgerSink.GroupLedger). A check's verdict over the whole history is
// the merge of its verdicts over the parts (properties.MergeFindings and
// the reports' Add: the same text, findings and counts); the ephemeral
// streams' checks judge every live scope together. That holds as long as
// no part's verdict depends on another part's operations, which the
// parts make sure of as they go; any of these sends the run to be judged
// whole, as it always was:
//   - a record in a scope's log that none of the part's operations
//     carried (another scope's write, or nobody's: only the liveness
//     probe's scopes, which no history writes to, hold such records),
//   - a record in one of the probe's scopes that a write refused before
//     sending carried,
//   - a broker's proposal or command of a client's request that no
//     operation of the proposal's scope sent
//     (properties.HistoryLandingsMatchRequestsIn, CommandAnswersHonestIn),
//   - a record landed in a shard group under a digest no proposal of the
//     group carries, or a command applied in another group than its
//     proposal's (LedgerSink.GroupLedger),
//   - a live read of a record no live publish or live-stream write
//     carried (properties.HistoryLiveDeliveryIn).
// Each is a record crossing scopes, a broker writing where it should
// not, and only a failing run shows one (TestCleanRunsJudgedInParts); so
// a passing run is always judged in parts, and the verdict never depends
// on which way it was judged (TestScopedJudgedAlike runs seeds and
// planted defects both ways and compares the results). The scopes'
// separation rests on one more fact, the workload's: a write's payload
// names its tenant, client and sequence number, so no two scopes' writes
// carry one (a retry carries its original's, on the original's scope).

// historyJudgment is what the history and outbox checks found over the
// whole history and the relay's sink, merged from their parts, with the
// tally of the history's operations.
type historyJudgment struct {
	partVerdicts
	// scoped says whether the history was judged in parts.
	scoped bool
}

// judgeHistory judges the workload's history (the drain's operations
// included) against the replicas' logs now: in parts (each part's logs
// taken when it is judged: nothing runs in between) when the
// options allow and the parts prove independent, else whole. It fails
// only when the history could not be read back.
func (r *run) judgeHistory(outline cluster.Snapshot) (*historyJudgment, error) {
	facts := r.historyFacts()
	if !r.opts.judgeWhole {
		j, ok, err := r.judgeScoped(ReplicaLogsOf(outline), facts)
		if err != nil || ok {
			return j, err
		}
	}
	h, err := r.wholeHistory()
	if err != nil {
		return nil, err
	}
	ledger, err := r.ledger()
	if err != nil {
		return nil, err
	}
	r.hist = h
	logs := ReplicaLogsOf(r.c.Snapshot())
	p := &historyPart{h: r.hist, logs: logs, ref: properties.LongestLogs(logs), ledger: ledger, facts: facts}
	r.inRun.drops.attach(&p.ref)
	j := &historyJudgment{partVerdicts: p.judge()}
	j.ephemeral = p.judgeEphemeral()
	ds, err := r.relay.Sink().Deliveries()
	if err != nil {
		return nil, err
	}
	served := relayServed(&p.ref, relayScopes(r.wl.Config()))
	j.outbox = outboxErrors(&served, ds, r.relayDrained)
	return j, nil
}

// judgeOutbox runs the outbox checks over the part, a scope's: its
// reference log when the relay serves it, and the sink's deliveries of it.
func (r *run) judgeOutbox(p *historyPart, v *partVerdicts) error {
	ds, err := r.relay.Sink().ScopeDeliveries(p.part.Scopes)
	if err != nil {
		return err
	}
	served := relayServed(&p.ref, relayScopes(r.wl.Config()))
	v.outbox = outboxErrors(&served, ds, r.relayDrained)
	return nil
}

// historyFacts are the facts every part of the run's history is judged with.
func (r *run) historyFacts() *historyFacts {
	latest := r.wl.LatestNs()
	for i := range r.drainSt.ops {
		latest = max(latest, r.drainSt.ops[i].InvokeNs, r.drainSt.ops[i].CompleteNs)
	}
	drained := r.drainSt.drained
	if !r.drainSt.ran {
		drained = nil
	}
	return &historyFacts{shardCount: r.shardCounter(), live: liveStreams(r.c.Config().Streams), drained: drained,
		drainRan: r.drainSt.ran, latestNs: latest, stepsMax: r.opts.LinearizableStepsMax,
		trims: r.relayTrims(), liveComplete: r.trace.leaders.check}
}

// judgeScoped judges the history a part at a time: the scopes of the
// history, of a replica (outline: the replicas' views without their
// logs), of the relay and of the ledger, ascending, cut into parts of
// whole scopes holding at most partOpsMax operations unless one scope
// holds more (scopedParts); the probe's scopes last (they need the
// payloads of the writes refused before sending), then the live scopes
// together for the ephemeral checks. A part reads the ledger of its
// scopes' shard groups. ok is false when a part proved dependent on
// another (see above): the caller judges the history whole.
func (r *run) judgeScoped(outline []properties.ReplicaLog, facts *historyFacts) (j *historyJudgment, ok bool, err error) {
	scopes := r.judgedScopes(outline)
	parts := r.scopedParts(scopes)
	notSent := map[string]bool{} // payloads of writes refused before sending; looked up only
	verdicts := make([]partVerdicts, len(parts))
	for _, probe := range []bool{false, true} {
		for i, ps := range parts {
			if (ps[0].Tenant == livenessTenant) != probe {
				continue
			}
			if ok, err := r.judgePart(ps, i == 0, facts, notSent, &verdicts[i]); err != nil || !ok {
				return nil, false, err
			}
		}
	}
	j = &historyJudgment{scoped: true}
	if j.ephemeral, ok, err = r.judgeLive(scopes, facts); err != nil || !ok {
		return nil, false, err
	}
	j.partVerdicts = mergeVerdicts(verdicts, j.ephemeral)
	return j, true, nil
}

// judgePart judges the part of scopes (ascending; ledgerPart: the one that
// judges the ledger's own findings) into v; ok is false when it proved
// dependent on another part.
func (r *run) judgePart(scopes []felix.Scope, ledgerPart bool, facts *historyFacts, notSent map[string]bool, v *partVerdicts) (ok bool, err error) {
	ledger, ok, err := r.partLedger(scopes)
	if err != nil || !ok {
		return false, err
	}
	p, err := r.scopePart(scopes, facts, ledger, ledgerPart)
	if err != nil || !p.independent(notSent) {
		return false, err
	}
	if *v = p.judge(); p.foreign {
		return false, nil
	}
	err = r.judgeOutbox(p, v)
	if r.opts.partJudged != nil {
		r.opts.partJudged()
		runtime.KeepAlive(p)
	}
	return err == nil, err
}

// partOpsMax is how many operations one part of a history judged in parts
// holds at most (scopedParts), unless one scope holds more: what the
// workload holds in memory during the run (workload.HeldOpsDefault).
const partOpsMax = workload.HeldOpsDefault

// scopedParts cuts scopes (ascending) into parts of consecutive scopes
// holding at most partOpsMax operations (a scope with more is a part of
// its own); the liveness probe's scopes, which hold none, never share a
// part with others.
func (r *run) scopedParts(scopes []felix.Scope) [][]felix.Scope {
	var out [][]felix.Scope
	ops, opsMax := 0, partOpsMax
	if r.opts.partOpsMax > 0 {
		opsMax = r.opts.partOpsMax
	}
	for i, s := range scopes {
		n := r.wl.ScopeOps(s) + r.drainOps(s)
		probe := s.Tenant == livenessTenant
		if i == 0 || ops+n > opsMax || probe != (scopes[i-1].Tenant == livenessTenant) {
			out, ops = append(out, nil), 0
		}
		out[len(out)-1] = append(out[len(out)-1], s)
		ops += n
	}
	return out
}

// drainOps counts the drain's operations of scope s.
func (r *run) drainOps(s felix.Scope) int {
	n := 0
	for i := range r.drainSt.ops {
		if r.drainSt.ops[i].Scope == s {
			n++
		}
	}
	return n
}

// partLedger is the part of the run's ledger of the shard groups of
// scopes (see LedgerSink.GroupLedger).
func (r *run) partLedger(scopes []felix.Scope) (*properties.Ledger, bool, error) {
	var groups []uint64
	for _, s := range scopes {
		if g := r.c.RaftGroupOf(s.Namespace, s.Stream, s.Shard); !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	return r.groupLedger(groups)
}

// judgeLive runs the ephemeral streams' checks over every live scope.
func (r *run) judgeLive(scopes []felix.Scope, facts *historyFacts) (ephemeral, bool, error) {
	var live []felix.Scope
	for _, s := range scopes {
		if slices.Contains(facts.live, properties.LiveStream{Namespace: s.Namespace, Stream: s.Stream}) {
			live = append(live, s)
		}
	}
	p, err := r.scopePart(live, facts, nil, false)
	if err != nil {
		return ephemeral{}, false, err
	}
	if len(live) == 0 {
		p.part.Scopes = []felix.Scope{} // a part of no scope, not the whole
	}
	e := p.judgeEphemeral()
	return e, !p.foreign, nil
}

// judgedScopes are the scopes of the history (the drain's included), of
// every replica's logs, of the relay and of the ledger, ascending.
func (r *run) judgedScopes(logs []properties.ReplicaLog) []felix.Scope {
	out := r.historyScopes()
	for _, s := range relayScopes(r.wl.Config()) {
		out = insertScope(out, s)
	}
	for _, s := range r.trace.ledger.Scopes(r.c.Config().Streams) {
		out = insertScope(out, s)
	}
	for i := range logs {
		for j := range logs[i].Scopes {
			out = insertScope(out, logs[i].Scopes[j].Scope)
		}
	}
	return out
}

// historyScopes are the scopes of the history's operations (the drain's
// included), ascending.
func (r *run) historyScopes() []felix.Scope {
	out := r.wl.Scopes()
	for i := range r.drainSt.ops {
		out = insertScope(out, r.drainSt.ops[i].Scope)
	}
	return out
}

// insertScope is the ascending scopes with s among them.
func insertScope(scopes []felix.Scope, s felix.Scope) []felix.Scope {
	if i, found := slices.BinarySearchFunc(scopes, s, felix.Scope.Compare); !found {
		scopes = slices.Insert(scopes, i, s)
	}
	return scopes
}

// scopeOps is the history's operations of scopes (ascending) in id
// order, the drain's among them numbered as in the whole history
// (withDrain).
func (r *run) scopeOps(scopes []felix.Scope) (*properties.History, error) {
	h, err := r.wl.ScopeHistory(scopes)
	if err != nil {
		return nil, err
	}
	next := uint64(r.wl.OpsRecorded()) + 1
	for i := range r.drainSt.ops {
		if op := r.drainSt.ops[i]; slices.Contains(scopes, op.Scope) {
			op.ID = next + uint64(i)
			h.Ops = append(h.Ops, op)
		}
	}
	return h, nil
}

// wholeHistory is the history's operations, the drain's included.
func (r *run) wholeHistory() (*properties.History, error) {
	h, err := r.wl.History()
	if err != nil {
		return nil, err
	}
	return r.withDrain(h), nil
}

// scopePart is the part of the history of scopes (ascending): their
// operations (the drain's among them, numbered as in the whole history),
// every running replica's logs of them (scopeLogs) and their reference
// log; ledgerPart marks the part that judges the ledger's own findings.
func (r *run) scopePart(scopes []felix.Scope, facts *historyFacts, ledger *properties.Ledger, ledgerPart bool) (*historyPart, error) {
	h, err := r.scopeOps(scopes)
	if err != nil {
		return nil, err
	}
	p := &historyPart{part: properties.HistoryPart{Scopes: scopes, Ledger: ledgerPart}, h: h, ledger: ledger, facts: facts,
		logs: r.scopeLogs(scopes)}
	p.ref = properties.LongestLogs(p.logs)
	r.inRun.drops.attach(&p.ref)
	return p, nil
}

// scopeLogs is every running replica's logs of scopes (ascending), one
// ReplicaLog per replica in the order Snapshot lists them: what
// ReplicaLogsOf(Snapshot()) holds of those scopes.
func (r *run) scopeLogs(scopes []felix.Scope) []properties.ReplicaLog {
	var out []properties.ReplicaLog
	for _, s := range scopes {
		for i, b := range r.c.ScopeStates(s) {
			if i == len(out) {
				out = append(out, properties.ReplicaLog{Node: b.Node})
			}
			if b.Held {
				out[i].Scopes = append(out[i].Scopes, workload.ReplicaViewOf(brokerName(b.Node), s, &b.State.Shard))
			}
		}
	}
	return out
}

// independent reports whether the part's verdicts depend on its own
// operations alone, as far as its logs show: every record its replicas
// hold is one its operations carried (in one of the probe's scopes, no
// record of a write refused before sending, whose payloads notSent
// holds). It adds the part's refused-before-sending payloads to notSent.
func (p *historyPart) independent(notSent map[string]bool) bool {
	carried := map[string]bool{} // looked up only
	for i := range p.h.Ops {
		if op := &p.h.Ops[i]; op.Kind.CarriesRecord() && op.Record != nil {
			carried[string(op.Record.Payload)] = true
			if op.Kind.IsWrite() && op.NotSent {
				notSent[string(op.Record.Payload)] = true
			}
		}
	}
	for _, l := range p.logs {
		for _, v := range l.Scopes {
			probe := v.Scope.Tenant == livenessTenant
			for k := range v.Log {
				if e := v.Log[k].Event; probe && notSent[e] || !probe && !carried[e] {
					return false
				}
			}
		}
	}
	return true
}

// mergeVerdicts merges the scopes' verdicts (ascending by scope) into the
// whole history's.
func mergeVerdicts(vs []partVerdicts, e ephemeral) partVerdicts {
	var out partVerdicts
	out.ephemeral = e
	out.tally = historyTally{counts: coverage.New()}
	routes, acked, delivered := make([]error, len(vs)), make([]error, len(vs)), make([]error, len(vs))
	history := make([][]error, len(historyChecks))
	outbox := make([][]error, len(outboxChecks)+1)
	contract := make([]contractVerdicts, len(vs))
	for i := range vs {
		v := &vs[i]
		contract[i] = v.contract
		routes[i], acked[i], delivered[i] = v.route, v.groupsAcked, v.groupsDelivered
		out.replica = append(out.replica, v.replica...)
		for c := range historyChecks {
			history[c] = append(history[c], v.history[c])
		}
		for c := range outbox {
			outbox[c] = append(outbox[c], v.outbox[c])
		}
		out.keysLost.Add(v.keysLost)
		out.lin.Add(v.lin)
		out.tally.add(v.tally)
	}
	out.contract = mergeContract(contract)
	out.route = properties.MergeFindings(routes)
	out.groupsAcked, out.groupsDelivered = properties.MergeFindings(acked), properties.MergeFindings(delivered)
	for c := range historyChecks {
		out.history = append(out.history, properties.MergeFindings(history[c]))
	}
	for c := range outbox {
		out.outbox = append(out.outbox, properties.MergeFindings(outbox[c]))
	}
	return out
}
