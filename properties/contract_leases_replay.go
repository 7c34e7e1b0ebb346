package properties

import (
	"math"
	"sort"
)

// The lease rule's second promise, replayed in log order. A group's
// fetches and acks are applied in its shard's log, one after another; the
// brokers' trace names each command's place there (its applied index),
// and the history names each call's requests. Replaying the group's
// commands in that order, a fetch whose answer the client took (and whose
// request applied once) hands out known records at a known time and
// expiry; an ack that applied ends its offset's lease for good; a fetch
// whose answer was lost, or whose request applied more than once, hands
// out records nobody saw, so every lease it may have renewed is no longer
// known. A known fetch with room that comes after a known lease expired,
// its offset not acknowledged, must hand that offset out again (the rule
// hands out expired leases first, up to the entry cap).

// appliedCommands indexes the ledger's commands that applied by request
// (the history client and request id); nil when there is no ledger or it
// overflowed.
func appliedCommands(l *Ledger) map[requestKey][]*LedgerProposal {
	if l == nil || l.Overflowed {
		return nil
	}
	out := map[requestKey][]*LedgerProposal{}
	for i := range l.Commands {
		if p := &l.Commands[i]; p.AppliedIndex > 0 {
			k := requestKey{p.Client, p.Request}
			out[k] = append(out[k], p)
		}
	}
	return out
}

// leaseEvent is one applied command of a group at its place in the log.
type leaseEvent struct {
	index uint64
	op    *HistoryOp
	// known marks a fetch whose answer the client took from this apply.
	known bool
}

// leaseKnown is what the replay knows of one offset's lease.
type leaseKnown struct {
	from      *HistoryOp
	expiryNs  int64
	uncertain bool
}

// replayExpiries replays the group's applied commands in log order and
// judges every known fetch with room; it returns how many it judged.
func (g *leaseGroup) replayExpiries(v *violations, applied map[requestKey][]*LedgerProposal) int {
	events, ok := g.events(applied)
	if !ok {
		return 0
	}
	horizonNs := g.unplacedFromNs()
	leases := map[uint64]*leaseKnown{}
	judged := 0
	for _, e := range events {
		switch {
		case e.op.Kind == HistoryGroupAck:
			delete(leases, e.op.AckOffset) // acknowledged: never handed out again
		case !e.known:
			for _, l := range leases { //det:ok each lease is marked alone
				l.uncertain = true
			}
			for _, en := range e.op.Entries {
				leases[en.Offset] = &leaseKnown{from: e.op, uncertain: true}
			}
		default:
			if len(e.op.Entries) < int(e.op.MaxEntries) && e.op.CompleteNs < horizonNs && g.judgeExpired(v, e.op, leases) {
				judged++
			}
			for _, en := range e.op.Entries {
				leases[en.Offset] = &leaseKnown{from: e.op, expiryNs: e.op.LeaseExpiryNs}
			}
		}
	}
	return judged
}

// judgeExpired reports every known, expired lease of leases that fetch f,
// which had room, did not hand out; it returns whether any lease was
// known expired (the fetch was judged).
func (g *leaseGroup) judgeExpired(v *violations, f *HistoryOp, leases map[uint64]*leaseKnown) bool {
	nowNs := f.LeaseExpiryNs - f.LeaseNs
	var late []uint64
	expired := false
	for o, l := range leases { //det:ok sorted below; expired is order-independent
		if l.uncertain || !LeaseExpired(l.expiryNs, nowNs) {
			continue
		}
		expired = true
		if !handsOut(f, o) {
			late = append(late, o)
		}
	}
	sort.Slice(late, func(i, j int) bool { return late[i] < late[j] })
	for _, o := range late {
		l := leases[o]
		v.add("scope %s group %q: fetch %d (client %d, broker time %d ns, %d of %d entries) did not hand out offset %d, whose lease from fetch %d (client %d) expired at %d ns unacknowledged: a lease outlived its expiry",
			g.key.Scope, g.key.Group, f.ID, f.Client, nowNs, len(f.Entries), f.MaxEntries, o, l.from.ID, l.from.Client, l.expiryNs)
	}
	return expired
}

// events are the group's applied commands in log order; false when a
// fetch answered ok has no applied request in the ledger (its place is
// unknown, so nothing after it can be judged).
func (g *leaseGroup) events(applied map[requestKey][]*LedgerProposal) ([]leaseEvent, bool) {
	var out []leaseEvent
	ops := append(append([]*HistoryOp(nil), g.fetches...), g.ackOps()...)
	for _, op := range ops {
		var ps []*LedgerProposal
		for _, q := range op.Requests {
			ps = append(ps, applied[requestKey{op.Client, q.ID}]...)
		}
		known := op.Kind == HistoryGroupFetch && op.Outcome == OutcomeOK && op.LeaseNs > 0 && op.LeaseExpiryNs > 0
		if known && op.Requests != nil && len(ps) == 0 {
			return nil, false
		}
		for _, p := range ps {
			if !p.AppliedError {
				out = append(out, leaseEvent{index: p.AppliedIndex, op: op, known: known && len(ps) == 1})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].index < out[j].index })
	return out, true
}

// ackOps are the group's sent acks, in history order.
func (g *leaseGroup) ackOps() []*HistoryOp {
	var out []*HistoryOp
	for _, as := range g.acked { //det:ok sorted below
		out = append(out, as...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// unplacedFromNs is when the first of the group's calls whose requests the
// history does not name (the drain's, say) was sent: the ledger cannot
// place them, so only a fetch answered before then (hence applied before
// any of them) is judged.
func (g *leaseGroup) unplacedFromNs() int64 {
	from := int64(math.MaxInt64)
	for _, op := range g.fetches {
		if op.Requests == nil {
			from = min(from, op.InvokeNs)
		}
	}
	for _, as := range g.acked { //det:ok the minimum is order-independent
		for _, op := range as {
			if op.Requests == nil {
				from = min(from, op.InvokeNs)
			}
		}
	}
	return from
}
