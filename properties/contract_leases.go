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
//     after o's lease expired, o unacknowledged, hands o out. That needs
//     the log's order of the group's fetches and acks, which a client
//     cannot see (every ack it sends may land, every fetch whose answer
//     it lost may have re-leased o): the brokers' trace gives it
//     (Ledger.Commands: each command's applied index). The group's
//     commands are replayed in that order against the lease rule
//     (contract_leases_replay.go), knowing an offset's lease only while
//     no command of unknown effect may have renewed it.

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
// acks (the drain's included) and, for expiries, the ledger of the
// brokers' trace (nil, or one that overflowed: expiries not judged).
func HistoryGroupLeases(h *History, l *Ledger) GroupLeaseReport {
	var rep GroupLeaseReport
	v := violations{what: InvariantGroupLeaseHonored}
	applied := appliedCommands(l)
	for _, g := range leaseGroupsOf(h) {
		handouts := g.handouts()
		offs := make([]uint64, 0, len(handouts))
		for o := range handouts { //det:ok sorted below
			offs = append(offs, o)
		}
		sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
		for _, o := range offs {
			rep.HandoutPairs += judgeHandouts(&v, g.key, o, handouts[o])
		}
		if applied != nil {
			rep.ExpiriesJudged += g.replayExpiries(&v, applied)
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

// handsOut reports whether fetch f's answer handed out offset o.
func handsOut(f *HistoryOp, o uint64) bool {
	for _, e := range f.Entries {
		if e.Offset == o {
			return true
		}
	}
	return false
}
