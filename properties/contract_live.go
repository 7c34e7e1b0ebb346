package properties

import (
	"sort"

	"github.com/felixsim/felixsim/felix"
)

// The ephemeral stream's read contract (contract_model_live.go): the
// shard's leader hands each publish to the subscribers live at that
// moment, and a live read drains, up to its entry cap, what was queued
// for its subscriber since its last read. So an empty answer to a live
// subscriber means it is caught up, and a short one that it got all
// there was: a read that answers fewer records than its cap while a
// publish waits in its queue breaks the contract. EphemeralLiveDelivery
// judges what was read (own scope, at most once per copy, in order);
// this check judges what was not.
//
// Only the broker's own queue promises anything, and it lives while that
// broker leads without a break and the subscriber keeps reading within
// the idle limit; a read's answer does not say which it was. The check
// judges a pair of reads of one subscriber, R1 then R2, answered by one
// broker B, where nothing the history cannot see may have emptied the
// queue in between: B's leadership of the shard did not move and B did
// not restart (LeaderChange, from the brokers' abstract trace), R2 was
// answered within idleBoundNs of R1's invocation (below the idle limit
// on the fastest clock), and no other read of the subscriber, and no
// second copy of one, could have reached B in between, and R2 came back
// with room (fewer records than its cap). Then every live publish of the
// scope that B acknowledged after R1 was answered and before R2 was sent
// must be in R2's answer.

// LeaderChange is a moment a stream shard's leadership may have moved:
// a broker was promoted in the shard's raft group, or restarted.
type LeaderChange struct {
	// Shard names the stream shard (Tenant empty).
	Shard felix.Scope
	AtNs  int64
	// Broker is the broker promoted or restarted, as clients name it.
	Broker  uint64
	Restart bool
}

// liveSub is one live subscriber's reads of one scope, by invocation.
type liveSub struct {
	key   liveSubscriber
	reads []*HistoryOp
}

// HistoryLiveReadsComplete checks EphemeralLiveComplete (see above) and
// returns how many read pairs it judged.
func HistoryLiveReadsComplete(h *History, changes []LeaderChange, idleBoundNs int64) (int, error) {
	v := violations{what: InvariantEphemeralLiveComplete}
	subs, pubs := liveSubsOf(h)
	judged := 0
	for _, s := range subs {
		for i := 1; i < len(s.reads); i++ {
			r1, r2 := s.reads[i-1], s.reads[i]
			b, ok := liveReadPair(r1, r2, idleBoundNs)
			if !ok || len(r2.Entries) >= int(r2.MaxEntries) || leadershipMoved(changes, r1.Scope, b, r1.InvokeNs, r2.CompleteNs) ||
				s.duplicatedBefore(r2.CompleteNs) || s.overlaps(r1, r2) {
				continue
			}
			judged++
			for _, p := range pubs[r1.Scope] {
				if ackedBy(p, b) && p.InvokeNs >= r1.CompleteNs && p.CompleteNs <= r2.InvokeNs && !readsPayload(r2, p.Record.Payload) {
					v.add("live read op %d (client %d on %s, answered by broker %d with %d of %d entries) lacks op %d's publish, which broker %d acknowledged at %d ns while the client was its live subscriber (read op %d at %d ns)",
						r2.ID, r2.Client, r2.Scope, b, len(r2.Entries), r2.MaxEntries, p.ID, b, p.CompleteNs, r1.ID, r1.CompleteNs)
				}
			}
		}
	}
	return judged, v.err()
}

// liveSubsOf gathers every live subscriber's sent reads, ascending by
// invocation, and the live publishes per scope.
func liveSubsOf(h *History) ([]*liveSub, map[felix.Scope][]*HistoryOp) {
	per := map[liveSubscriber]*liveSub{}
	var keys []liveSubscriber
	pubs := map[felix.Scope][]*HistoryOp{}
	for i := range h.Ops {
		op := &h.Ops[i]
		switch {
		case op.Kind == HistoryLivePublish && op.Outcome == OutcomeOK:
			pubs[op.Scope] = append(pubs[op.Scope], op)
		case op.Kind == HistoryLiveRead && !op.NotSent:
			k := liveSubscriber{op.Client, op.Scope}
			if per[k] == nil {
				per[k] = &liveSub{key: k}
				keys = append(keys, k)
			}
			per[k].reads = append(per[k].reads, op)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].client != keys[j].client {
			return keys[i].client < keys[j].client
		}
		return keys[i].scope.Less(keys[j].scope)
	})
	out := make([]*liveSub, len(keys))
	for i, k := range keys {
		out[i] = per[k]
		sort.SliceStable(out[i].reads, func(a, b int) bool { return out[i].reads[a].InvokeNs < out[i].reads[b].InvokeNs })
	}
	return out, pubs
}

// liveReadPair reports the broker that answered both of two consecutive
// reads of one subscriber, when the pair can be judged: both answered
// with records by that broker (answeredBy), r1 answered before r2 was
// sent (or as it was: an answer arrives after its request did), r2
// answered within idleBoundNs of r1's invocation.
func liveReadPair(r1, r2 *HistoryOp, idleBoundNs int64) (uint64, bool) {
	if r1.Outcome != OutcomeOK || r2.Outcome != OutcomeOK || r1.CompleteNs > r2.InvokeNs || r2.CompleteNs-r1.InvokeNs > idleBoundNs {
		return 0, false
	}
	b1, ok1 := answeredBy(r1)
	b2, ok2 := answeredBy(r2)
	return b1, ok1 && ok2 && b1 == b2
}

// answeredBy is the broker whose answer ended read r, when r sent it one
// request, delivered once, answered with records: its other requests
// (the NotLeader redirects before it) went to other brokers, whose
// refusals touch no queue of this one.
func answeredBy(r *HistoryOp) (uint64, bool) {
	if len(r.Requests) == 0 {
		return 0, false
	}
	last := r.Requests[len(r.Requests)-1]
	if last.Answer != AnswerEntries || last.Delivered != 1 {
		return 0, false
	}
	for _, q := range r.Requests[:len(r.Requests)-1] {
		if q.Broker == last.Broker {
			return 0, false
		}
	}
	return last.Broker, true
}

// overlaps reports whether a read of the subscriber other than r1 and r2
// was in flight between them (sent before r2 was answered, not answered
// before r1 was sent): it may have drained the queue.
func (s *liveSub) overlaps(r1, r2 *HistoryOp) bool {
	for _, r := range s.reads {
		if r != r1 && r != r2 && r.InvokeNs < r2.CompleteNs && (r.Outcome == OutcomePending || r.CompleteNs > r1.InvokeNs) {
			return true
		}
	}
	return false
}

// duplicatedBefore reports whether a read of the subscriber sent before
// atNs may have had a copy the history does not show answered (its
// requests unrecorded, or one delivered more than once): such a copy
// drains the queue unseen.
func (s *liveSub) duplicatedBefore(atNs int64) bool {
	for _, r := range s.reads {
		if r.InvokeNs >= atNs {
			return false
		}
		if r.Requests == nil {
			return true
		}
		for _, q := range r.Requests {
			if q.Delivered > 1 {
				return true
			}
		}
	}
	return false
}

// leadershipMoved reports whether, between fromNs and toNs, shard's
// leadership was given to any broker or broker b restarted.
func leadershipMoved(changes []LeaderChange, s felix.Scope, b uint64, fromNs, toNs int64) bool {
	for _, c := range changes {
		if c.AtNs >= fromNs && c.AtNs <= toNs && sameShard(c.Shard, s) && (!c.Restart || c.Broker == b) {
			return true
		}
	}
	return false
}

// ackedBy reports whether broker b answered one of p's requests Acked.
func ackedBy(p *HistoryOp, b uint64) bool {
	for _, q := range p.Requests {
		if q.Answer == AnswerAcked && q.Broker == b {
			return true
		}
	}
	return false
}

// readsPayload reports whether read r's answer holds a record of payload.
func readsPayload(r *HistoryOp, payload []byte) bool {
	for _, e := range r.Entries {
		if string(e.Record.Payload) == string(payload) {
			return true
		}
	}
	return false
}
