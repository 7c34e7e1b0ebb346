package properties

import "github.com/felixsim/felixsim/felix"

// An ephemeral stream keeps no log (docs/atomic-commit.md, "Ephemeral
// streams and the feature gate"): its shard's leader hands each plain
// publish to the subscribers live at that moment and keeps nothing, and it
// refuses every record with state operations (EphemeralStream), and with
// it commit and commit_if, writing nothing. The two checks below judge a
// history against those promises: what the live subscribers read
// (HistoryLiveRead) against what was published (HistoryLivePublish), and
// the commits sent to an ephemeral stream against their answers and the
// replicas' logs. Neither reads broker state beyond the replicas' logs.
// Publishes are told apart by payload, which the workload makes unique
// per publish.

// LiveStream names one ephemeral stream of a topology.
type LiveStream struct {
	Namespace, Stream string
}

// holds reports whether scope s is a shard of one of the streams.
func holdsScope(streams []LiveStream, s felix.Scope) bool {
	for _, l := range streams {
		if l.Namespace == s.Namespace && l.Stream == s.Stream {
			return true
		}
	}
	return false
}

// HistoryEphemeralRefusesCommits checks EphemeralRefusesCommits over the
// ephemeral streams live: (1) no write sent to one of their shards (a
// commit, commit_if, publish_if or enqueue) ended ok or refused, nor was
// any of its requests answered written, refused or acked; (2) no replica
// holds a record or a key of one of their scopes; (3) no live subscriber
// read a record carrying state operations, or the event of such a write.
func HistoryEphemeralRefusesCommits(h *History, replicas []ReplicaLog, live []LiveStream) error {
	if len(live) == 0 {
		return nil
	}
	v := violations{what: InvariantEphemeralRefusesCommits}
	writes := map[string]*HistoryOp{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if !op.Kind.IsWrite() || op.NotSent || !holdsScope(live, op.Scope) {
			continue
		}
		writes[string(op.Record.Payload)] = op
		if op.Outcome == OutcomeOK || op.Outcome == OutcomeRefused {
			v.add("op %d (%s on ephemeral %s) ended %s: an ephemeral stream has no log to hold it", op.ID, op.Kind, op.Scope, op.Outcome)
		}
		for _, q := range op.Requests {
			if q.Answer == AnswerWritten || q.Answer == AnswerRefused || q.Answer == AnswerAcked {
				v.add("op %d (%s on ephemeral %s): broker %d answered its request %d %s, not EphemeralStream", op.ID, op.Kind, op.Scope, q.Broker, q.ID, q.Answer)
			}
		}
	}
	for r := range replicas {
		for s := range replicas[r].Scopes {
			sv := &replicas[r].Scopes[s]
			if holdsScope(live, sv.Scope) && (sv.NextOffset > 0 || len(sv.Log) > 0 || len(sv.State) > 0) {
				v.add("broker %d holds ephemeral scope %s: next offset %d, %d records, %d keys; an ephemeral stream writes nothing",
					replicas[r].Node, sv.Scope, sv.NextOffset, len(sv.Log), len(sv.State))
			}
		}
	}
	forLiveEntries(h, func(rd *HistoryOp, j int) {
		e := &rd.Entries[j]
		if w, ok := writes[string(e.Record.Payload)]; ok {
			v.add("live read op %d on %s read, at offset %d, the event of op %d (%s), which the stream must refuse", rd.ID, rd.Scope, e.Offset, w.ID, w.Kind)
		} else if len(e.Record.Ops) > 0 {
			v.add("live read op %d on %s read, at offset %d, a record with %d state operations", rd.ID, rd.Scope, e.Offset, len(e.Record.Ops))
		}
	})
	return v.err()
}

// forLiveEntries calls f for every entry of every live read that ended ok.
func forLiveEntries(h *History, f func(rd *HistoryOp, j int)) {
	for i := range h.Ops {
		rd := &h.Ops[i]
		if rd.Kind != HistoryLiveRead || rd.Outcome != OutcomeOK {
			continue
		}
		for j := range rd.Entries {
			f(rd, j)
		}
	}
}

// liveSubscriber is one client reading one ephemeral shard.
type liveSubscriber struct {
	client int
	scope  felix.Scope
}

// HistoryLiveDelivery checks EphemeralLiveDelivery: every entry a live
// read returned is a live publish of the reader's own scope (tenant and
// shard: another tenant's publish leaks), with that publish's record,
// invoked before the read returned, and not acknowledged before the
// reader's first read of the scope was sent (it was live nowhere then);
// one subscriber reads a publish at most once per copy of its requests
// the network delivered to a broker (a queue drained twice shows it
// again); and within one read, whose entries come from one broker's
// queue, offsets ascend and no publish comes before one that was
// acknowledged before it was invoked. A live read's entry that carries
// no live publish's payload is left to HistoryEphemeralRefusesCommits
// when a write carries it, and reported here otherwise.
func HistoryLiveDelivery(h *History) error {
	err, _ := HistoryLiveDeliveryIn(h, HistoryPart{})
	return err
}

// HistoryLiveDeliveryIn is HistoryLiveDelivery over part of a history
// that holds every scope of the live streams (h holds the part's
// operations). foreign reports a live read's entry that carries the
// payload of no live publish or write of h: whether a write of another
// part carries it decides the finding, so the caller must judge the
// history whole (it never happens in a part that is the whole).
func HistoryLiveDeliveryIn(h *History, part HistoryPart) (err error, foreign bool) {
	v := violations{what: InvariantEphemeralLiveDelivery}
	pubs, writes := map[string]*HistoryOp{}, map[string]bool{}
	firstReadNs := map[liveSubscriber]int64{}
	for i := range h.Ops {
		op := &h.Ops[i]
		switch {
		case op.Kind == HistoryLivePublish:
			if _, dup := pubs[string(op.Record.Payload)]; !dup {
				pubs[string(op.Record.Payload)] = op
			}
		case op.Kind.IsWrite():
			writes[string(op.Record.Payload)] = true
		case op.Kind == HistoryLiveRead && !op.NotSent:
			k := liveSubscriber{op.Client, op.Scope}
			if at, ok := firstReadNs[k]; !ok || op.InvokeNs < at {
				firstReadNs[k] = op.InvokeNs
			}
		}
	}
	seen := map[liveSubscriber]map[string]uint64{}
	forLiveEntries(h, func(rd *HistoryOp, j int) {
		e := &rd.Entries[j]
		p, ok := pubs[string(e.Record.Payload)]
		if !ok {
			if !writes[string(e.Record.Payload)] {
				foreign = foreign || part.Scopes != nil
				v.add("live read op %d on %s read %q at offset %d, which no live publish sent", rd.ID, rd.Scope, e.Record.Payload, e.Offset)
			}
			return
		}
		k := liveSubscriber{rd.Client, rd.Scope}
		if seen[k] == nil {
			seen[k] = map[string]uint64{}
		}
		seen[k][string(e.Record.Payload)]++
		judgeLiveEntry(&v, rd, j, p, firstReadNs[k], seen[k][string(e.Record.Payload)])
		for i := 0; i < j; i++ {
			judgeLiveOrder(&v, rd, i, j, pubs)
		}
	})
	return v.err(), foreign
}

// judgeLiveEntry judges entry j of live read rd, the n-th time its
// subscriber read it, against p, the publish that sent it; firstNs is
// when the subscriber's first read of the scope was sent.
func judgeLiveEntry(v *violations, rd *HistoryOp, j int, p *HistoryOp, firstNs int64, n uint64) {
	e := &rd.Entries[j]
	got, want := ViewEntryOf(0, &e.Record), ViewEntryOf(0, p.Record)
	switch same, diff := SameRecord(&got, &want); {
	case p.Scope != rd.Scope:
		v.add("live read op %d on %s (client %d) read op %d's publish to %s: it reached another scope's subscriber", rd.ID, rd.Scope, rd.Client, p.ID, p.Scope)
	case !same:
		v.add("live read op %d on %s read op %d's publish at offset %d with another record (%s)", rd.ID, rd.Scope, p.ID, e.Offset, diff)
	case p.InvokeNs > rd.CompleteNs:
		v.add("live read op %d on %s returned at %d ns op %d's publish, invoked later, at %d ns", rd.ID, rd.Scope, rd.CompleteNs, p.ID, p.InvokeNs)
	case p.Outcome == OutcomeOK && p.CompleteNs < firstNs:
		v.add("live read op %d on %s (client %d) read op %d's publish, acknowledged at %d ns, before the client's first read of the scope was sent at %d ns: it was no live subscriber then",
			rd.ID, rd.Scope, rd.Client, p.ID, p.CompleteNs, firstNs)
	}
	if p.Requests == nil {
		return
	}
	copies := uint64(0)
	for _, q := range p.Requests {
		copies += uint64(q.Delivered)
	}
	if n > copies {
		v.add("client %d read op %d's publish on %s a %d. time (in live read op %d), but only %d copies of its requests reached a broker",
			rd.Client, p.ID, rd.Scope, n, rd.ID, copies)
	}
}

// judgeLiveOrder judges entries i < j of one live read: their offsets
// ascend, and j's publish was not acknowledged before i's was invoked
// (one queue hands out in the order it was filled).
func judgeLiveOrder(v *violations, rd *HistoryOp, i, j int, pubs map[string]*HistoryOp) {
	a, b := &rd.Entries[i], &rd.Entries[j]
	if a.Offset >= b.Offset {
		v.add("live read op %d on %s returned offset %d before offset %d", rd.ID, rd.Scope, a.Offset, b.Offset)
	}
	pa, pb := pubs[string(a.Record.Payload)], pubs[string(b.Record.Payload)]
	if pa != nil && pb != nil && pb.Outcome == OutcomeOK && pb.CompleteNs < pa.InvokeNs {
		v.add("live read op %d on %s returned op %d's publish before op %d's, which was acknowledged at %d ns, before op %d was invoked at %d ns",
			rd.ID, rd.Scope, pa.ID, pb.ID, pb.CompleteNs, pa.ID, pa.InvokeNs)
	}
}
