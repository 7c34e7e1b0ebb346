package properties

import (
	"sort"
)

// Consumer-group leases against the contract's lease rule
// (contract_model_groups.go). A fetch's answer reports one expiry for
// every record it handed out: the time its command carried (the proposing
// broker's clock, "now") plus the lease the fetch asked for, so each
// answered fetch tells its own now (expiry - lease). Two promises follow,
// and both are judged on answered fetches alone:
//
//   - a record handed out is not handed out again before that lease
//     expires: of any two fetches that hand out offset o, the later in
//     log order has now at or past the earlier's expiry. So the log order
//     of the fetches handing out o is their order by now, and each must
//     come at or after the expiry of the one before. A fetch whose answer
//     was lost only adds a handout in between, which pushes the next
//     expiry later still: leaving it out never makes a correct run fail.
//   - a lease does not outlive its expiry: a fetch with room that comes
//     after o's lease expired, o unacknowledged, hands o out. Judged only
//     where nothing the history cannot see may have re-leased or acked o
//     in between (see leaseExpiryJudgeable): no ack of o sent, no other
//     fetch of the group whose effect is unknown, every copy counted.

// leaseHandout is one answered fetch's handout of an offset.
type leaseHandout struct {
	op              *HistoryOp
	nowNs, expiryNs int64
}

// GroupLeaseReport is what HistoryGroupLeases judged: pairs of handouts
// of one offset compared by the lease rule, and fetches judged for a
// lease known to have expired.
type GroupLeaseReport struct {
	HandoutPairs, ExpiriesJudged int
	Err                          error
}

// leaseGroup is one consumer group's answered fetches and its acks.
type leaseGroup struct {
	key     GroupKey
	fetches []*HistoryOp // every sent fetch, ok or not
	acked   map[uint64][]*HistoryOp
}

// HistoryGroupLeases checks GroupLeaseHonored over h's group fetches and
// acks (the drain's included).
func HistoryGroupLeases(h *History) GroupLeaseReport {
	var rep GroupLeaseReport
	v := violations{what: InvariantGroupLeaseHonored}
	for _, g := range leaseGroupsOf(h) {
		handouts := g.handouts()
		offs := make([]uint64, 0, len(handouts))
		for o := range handouts { //det:ok sorted below
			offs = append(offs, o)
		}
		sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
		for _, o := range offs {
			rep.HandoutPairs += judgeHandouts(&v, g.key, o, handouts[o])
			rep.ExpiriesJudged += g.judgeExpiry(&v, o, handouts[o])
		}
	}
	rep.Err = v.err()
	return rep
}

// leaseGroupsOf gathers every group's sent fetches and acks, groups in
// ascending order.
func leaseGroupsOf(h *History) []*leaseGroup {
	per := map[GroupKey]*leaseGroup{}
	var keys []GroupKey
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind != HistoryGroupFetch && op.Kind != HistoryGroupAck || op.NotSent {
			continue
		}
		k := GroupKey{op.Scope, op.Group}
		g := per[k]
		if g == nil {
			g = &leaseGroup{key: k, acked: map[uint64][]*HistoryOp{}}
			per[k] = g
			keys = append(keys, k)
		}
		if op.Kind == HistoryGroupAck {
			g.acked[op.AckOffset] = append(g.acked[op.AckOffset], op)
		} else {
			g.fetches = append(g.fetches, op)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Scope != keys[j].Scope {
			return keys[i].Scope.Less(keys[j].Scope)
		}
		return keys[i].Group < keys[j].Group
	})
	out := make([]*leaseGroup, len(keys))
	for i, k := range keys {
		out[i] = per[k]
	}
	return out
}

// handouts are the group's answered handouts per offset, each list in the
// log order the lease rule implies: by now, then by op id.
func (g *leaseGroup) handouts() map[uint64][]leaseHandout {
	out := map[uint64][]leaseHandout{}
	for _, f := range g.fetches {
		if f.Outcome != OutcomeOK || f.LeaseNs <= 0 || f.LeaseExpiryNs <= 0 {
			continue
		}
		for _, e := range f.Entries {
			out[e.Offset] = append(out[e.Offset], leaseHandout{op: f, nowNs: f.LeaseExpiryNs - f.LeaseNs, expiryNs: f.LeaseExpiryNs})
		}
	}
	for _, hs := range out { //det:ok each list sorted alone
		sort.Slice(hs, func(i, j int) bool {
			if hs[i].nowNs != hs[j].nowNs {
				return hs[i].nowNs < hs[j].nowNs
			}
			return hs[i].op.ID < hs[j].op.ID
		})
	}
	return out
}

// judgeHandouts judges consecutive handouts of offset o by the lease
// rule and returns how many pairs it judged.
func judgeHandouts(v *violations, k GroupKey, o uint64, hs []leaseHandout) int {
	for i := 1; i < len(hs); i++ {
		a, b := hs[i-1], hs[i]
		if !LeaseExpired(a.expiryNs, b.nowNs) {
			v.add("scope %s group %q: fetch %d (client %d) handed out offset %d at broker time %d ns, before the lease fetch %d (client %d) had given it expired, at %d ns",
				k.Scope, k.Group, b.op.ID, b.op.Client, o, b.nowNs, a.op.ID, a.op.Client, a.expiryNs)
		}
	}
	return max(len(hs)-1, 0)
}

// judgeExpiry judges every answered fetch with room that did not hand out
// offset o against the leases of o known to precede it: if every handout
// of o that may precede the fetch had expired by the fetch's now, at
// least one certainly precedes it, and nothing the history cannot see may
// have re-leased or acked o in between, the fetch had to hand o out
// again. It returns how many fetches it judged.
func (g *leaseGroup) judgeExpiry(v *violations, o uint64, hs []leaseHandout) int {
	judged := 0
	for _, f := range g.fetches {
		if f.Outcome != OutcomeOK || f.LeaseNs <= 0 || f.LeaseExpiryNs <= 0 || len(f.Entries) >= int(f.MaxEntries) || handsOut(f, o) {
			continue
		}
		nowNs := f.LeaseExpiryNs - f.LeaseNs
		last, ok := lastExpiredBefore(hs, f, nowNs)
		if !ok || !g.leaseExpiryJudgeable(o, last.op, f) {
			continue
		}
		judged++
		v.add("scope %s group %q: fetch %d (client %d, broker time %d ns, %d of %d entries) did not hand out offset %d, whose lease from fetch %d (client %d) expired at %d ns unacknowledged: a lease outlived its expiry",
			g.key.Scope, g.key.Group, f.ID, f.Client, nowNs, len(f.Entries), f.MaxEntries, o, last.op.ID, last.op.Client, last.expiryNs)
	}
	return judged
}

// lastExpiredBefore is the handout of hs that certainly precedes fetch f
// in the log (answered before f was sent) with the latest now, if every
// handout that may precede f (sent before f's answer) had expired by
// nowNs; false when none certainly precedes f or one may still be live.
func lastExpiredBefore(hs []leaseHandout, f *HistoryOp, nowNs int64) (leaseHandout, bool) {
	var last leaseHandout
	found := false
	for _, h := range hs {
		if h.op == f || h.op.InvokeNs >= f.CompleteNs {
			continue
		}
		if !LeaseExpired(h.expiryNs, nowNs) {
			return leaseHandout{}, false
		}
		if h.op.CompleteNs < f.InvokeNs && (!found || h.nowNs > last.nowNs) {
			last, found = h, true
		}
	}
	return last, found
}

// leaseExpiryJudgeable reports whether, between handout fetch from and
// fetch to, nothing the history cannot see may have changed offset o's
// lease: no ack of o was sent before to's answer, both fetches reached a
// broker exactly once, and every other fetch of the group that overlaps
// the window reached one exactly once and was answered (its handouts are
// then known).
func (g *leaseGroup) leaseExpiryJudgeable(o uint64, from, to *HistoryOp) bool {
	for _, a := range g.acked[o] {
		if a.InvokeNs < to.CompleteNs {
			return false
		}
	}
	if copiesKnown(from) != 1 || copiesKnown(to) != 1 {
		return false
	}
	for _, f := range g.fetches {
		if f == from || f == to || f.InvokeNs >= to.CompleteNs || f.Outcome != OutcomePending && f.CompleteNs < from.InvokeNs && copiesKnown(f) == 1 {
			continue
		}
		if f.Outcome != OutcomeOK || copiesKnown(f) != 1 {
			return false
		}
	}
	return true
}

// handsOut reports whether fetch f's answer handed out offset o.
func handsOut(f *HistoryOp, o uint64) bool {
	for _, e := range f.Entries {
		if e.Offset == o {
			return true
		}
	}
	return false
}

// copiesKnown is how many copies of op's requests reached a broker, -1
// when the history does not say.
func copiesKnown(op *HistoryOp) int {
	if op.Requests == nil {
		return -1
	}
	n := 0
	for _, q := range op.Requests {
		n += int(q.Delivered)
	}
	return n
}
