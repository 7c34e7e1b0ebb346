package runner

import (
	"errors"
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/workload"
	"github.com/felixsim/felixsim/wire"
)

// The drain is the phase after quiesce that makes "every committed record
// is delivered to its group at least once" checkable: through the probe,
// it fetches and acks the workload's consumer group in every workload
// scope until the group's committed position reaches the shard's tail on
// the group's leader. Its fetches and acks join the history (as client
// drainClient), so GroupDeliversEveryRecord and GroupAckedNotRedelivered
// judge them like any other. A drain that cannot finish within
// QuiesceBudgetNs is a Quiesce violation; then no group counts as drained.
const (
	// drainFetchMax is how many records one drain fetch asks for.
	drainFetchMax = 256
	// drainLeaseNs is the lease of a drain fetch: short, so what a lost
	// answer leased is soon handed out again.
	drainLeaseNs = 300_000_000
	// drainWaitNs is how long the drain waits after a fetch that handed out
	// nothing (leases still live) before it fetches again.
	drainWaitNs = 100_000_000
)

// errStranded marks a group whose next record retention has dropped: it
// can never reach its tail. Retention never drops what a group has not
// committed, so that is a GroupRecordsRetained violation; the group is
// left undrained and the drain goes on with the others.
var errStranded = errors.New("group stranded by retention")

// drainState is what the drain did: its history operations (IDs assigned
// when they join the workload's history) and the groups it brought to
// their tail.
type drainState struct {
	ops     []properties.HistoryOp
	drained []properties.GroupKey
	// ran is true when the drain ran to its end for every scope.
	ran bool
	// stale are acks whose answers had not come when the drain moved on.
	stale []uint64
	// disagreed is GroupStateAgreement's finding before the drain (nil:
	// the replicas agreed); a second finding after it is not reported.
	disagreed error
}

// drain runs the drain phase, then quiesces again so that every replica
// applies what it did; unless liveness or quiesce already failed (the
// groups are then not checked for delivery or agreement). It first checks
// GroupStateAgreement on the quiesced replicas as the workload left them,
// leases in flight included: the drain acks every lease away, so a
// divergence only in leases is visible only before it (check runs the
// same check again after it).
func (r *run) drain() {
	for _, v := range r.res.Violations {
		if v.Invariant == properties.InvariantLiveness || v.Invariant == properties.InvariantQuiesce {
			return
		}
	}
	r.drainSt.disagreed = properties.GroupStatesAgree(r.liveGroupReplicas())
	r.violate(properties.InvariantGroupStateAgreement, r.drainSt.disagreed)
	end := r.c.World.NowNs() + r.opts.QuiesceBudgetNs
	var stranded []error
	defer func() { r.violate(properties.InvariantGroupRecordsRetained, foldErrors(stranded, "groups stranded")) }()
	for _, sc := range r.workloadScopes() {
		k := properties.GroupKey{Scope: sc, Group: workload.GroupNameDefault}
		err := r.drainGroup(k, end)
		if errors.Is(err, errStranded) {
			stranded = append(stranded, properties.GroupStranded(k, err.Error()))
			continue
		}
		if err != nil {
			r.violate(properties.InvariantQuiesce, fmt.Errorf("consumer-group drain: %w", err))
			r.drainSt.drained = nil
			return
		}
		r.drainSt.drained = append(r.drainSt.drained, k)
	}
	r.quiesce() // every replica applies the drain's acks before the checks
	for _, id := range r.drainSt.stale {
		r.probe.Take(id) // late answers; the history calls those acks unknown
	}
	r.drainSt.ran = true
}

// workloadScopes are every scope a workload client may have written,
// ascending.
func (r *run) workloadScopes() []felix.Scope {
	var out []felix.Scope
	for _, t := range r.wl.Config().Tenants {
		for _, s := range streamNames(r.opts.Streams) {
			for sh := uint32(0); sh < r.opts.Shards; sh++ {
				out = append(out, felix.Scope{Tenant: t, Namespace: Namespace, Stream: s, Shard: sh})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out
}

// drainGroup fetches and acks k until its committed position is its
// shard's tail on the group's leader, or endNs passes.
func (r *run) drainGroup(k properties.GroupKey, endNs int64) error {
	w := r.c.World
	g := r.c.RaftGroupOf(k.Scope.Namespace, k.Scope.Stream, k.Scope.Shard)
	for {
		committed, next, found := r.groupProgress(g, k)
		if next == 0 || found && committed == next {
			return nil
		}
		if w.NowNs() >= endNs {
			return fmt.Errorf("scope %s group %q at committed position %d of tail %d when the budget of %d ns ran out; %s", k.Scope, k.Group, committed, next, r.opts.QuiesceBudgetNs, r.whyStuck(g))
		}
		ents, err := r.drainFetch(g, k, endNs)
		if err != nil {
			return err
		}
		if len(ents) == 0 {
			endNs = max(endNs, w.NowNs()+r.leaseWaitNs(g, k)+drainWaitNs)
			w.RunFor(min(drainWaitNs, max(1, endNs-w.NowNs())))
			continue
		}
		r.drainAcks(g, k, ents, endNs)
	}
}

// leaseWaitNs is how long, by the group's leader's clock, until the last
// of k's leases there expires (0 when none is live). Leases are judged by
// the proposers' clocks, which faults skew and jump by seconds, so a
// lease handed out by one leader may outlive the drain's budget on the
// next: the drain's deadline stretches to it (it is bounded by the
// expiries the replicas hold).
func (r *run) leaseWaitNs(g uint64, k properties.GroupKey) int64 {
	lead, ok := r.c.Leader(g)
	n := r.c.Node(lead)
	if !ok || n == nil {
		return 0
	}
	var last int64
	for _, sg := range n.ConsumerGroups() {
		if sg.Scope != k.Scope {
			continue
		}
		for _, gs := range sg.Groups {
			for _, l := range gs.Leases {
				if gs.Name == k.Group {
					last = max(last, l.ExpiryNs)
				}
			}
		}
	}
	return max(0, last-r.c.World.LocalNowNs(cluster.SimID(lead)))
}

// groupProgress reads k's position and its shard's tail on the group's
// leader; with no leader yet it reports an unfound group below a tail of
// 1, so the caller fetches (which waits for a leader) and looks again.
func (r *run) groupProgress(g uint64, k properties.GroupKey) (committed, next uint64, found bool) {
	lead, ok := r.c.Leader(g)
	if !ok {
		return 0, 1, false
	}
	n := r.c.Node(lead)
	if n == nil {
		return 0, 1, false
	}
	return n.GroupProgress(k.Scope, k.Group)
}

// drainFetch sends one fetch and records it; it returns what was handed
// out (nothing when no answer came or the broker refused).
func (r *run) drainFetch(g uint64, k properties.GroupKey, endNs int64) ([]felix.Entry, error) {
	w := r.c.World
	op := properties.HistoryOp{Client: r.drainClient(), Kind: properties.HistoryGroupFetch, Scope: k.Scope, Group: k.Group,
		MaxEntries: drainFetchMax, LeaseNs: drainLeaseNs, InvokeNs: w.NowNs()}
	req := &wire.Request{Scope: k.Scope, Body: &wire.GroupFetch{Group: k.Group, MaxEntries: drainFetchMax, LeaseNs: drainLeaseNs}}
	ans, err := r.probe.Call(r.c, g, req, max(1, endNs-w.NowNs()))
	op.CompleteNs = w.NowNs()
	var out []felix.Entry
	switch {
	case err != nil:
		op.Outcome, op.Error = properties.OutcomeUnknown, err.Error()
	default:
		switch b := ans.Body.(type) {
		case *wire.Deliveries:
			op.Outcome, op.Entries, op.LeaseExpiryNs = properties.OutcomeOK, workload.HistoryEntries(b.Entries), int64(b.LeaseExpiryNs)
			out = op.Entries
		case *wire.Error:
			op.Outcome, op.Error = properties.OutcomeFailed, b.Message
			if b.Code == wire.CodeBeforeWindow {
				err = fmt.Errorf("%w: %s", errStranded, b.Message)
			}
		default:
			op.Outcome, op.Error = properties.OutcomeFailed, fmt.Sprintf("fetch answered %T", ans.Body)
		}
	}
	r.drainSt.ops = append(r.drainSt.ops, op)
	if errors.Is(err, errStranded) {
		return nil, err
	}
	return out, nil
}

// drainAcks sends an ack of every entry to the group's leader at once and
// records each: ok when acked, failed when refused, unknown when no answer
// came within one probe attempt (the record is then handed out again when
// its lease expires).
func (r *run) drainAcks(g uint64, k properties.GroupKey, ents []felix.Entry, endNs int64) {
	w := r.c.World
	lead, ok := r.c.Leader(g)
	if !ok {
		return
	}
	first := len(r.drainSt.ops)
	ids := make([]uint64, len(ents))
	for i := range ents {
		ids[i] = r.probe.Send(lead, &wire.Request{Scope: k.Scope, Body: &wire.GroupAck{Group: k.Group, Offset: ents[i].Offset}})
		r.drainSt.ops = append(r.drainSt.ops, properties.HistoryOp{Client: r.drainClient(), Kind: properties.HistoryGroupAck,
			Scope: k.Scope, Group: k.Group, AckOffset: ents[i].Offset, InvokeNs: w.NowNs(), Outcome: properties.OutcomePending})
	}
	left := len(ids)
	_ = w.RunUntil(func() (bool, string) {
		for i, id := range ids {
			if op := &r.drainSt.ops[first+i]; op.Outcome == properties.OutcomePending {
				if ans, ok := r.probe.Take(id); ok {
					completeDrainAck(op, ans, w.NowNs())
					left--
				}
			}
		}
		return left == 0, fmt.Sprintf("%d drain acks unanswered", left)
	}, min(cluster.ProbeAttemptNs, max(1, endNs-w.NowNs())))
	for i, id := range ids {
		if op := &r.drainSt.ops[first+i]; op.Outcome == properties.OutcomePending {
			op.Outcome, op.CompleteNs, op.Error = properties.OutcomeUnknown, w.NowNs(), "no answer within one probe attempt"
			r.drainSt.stale = append(r.drainSt.stale, id)
		}
	}
}

// completeDrainAck records an ack's answer.
func completeDrainAck(op *properties.HistoryOp, ans *wire.Answer, nowNs int64) {
	op.CompleteNs = nowNs
	switch b := ans.Body.(type) {
	case *wire.Acked:
		op.Outcome = properties.OutcomeOK
	case *wire.Error:
		op.Outcome, op.Error = properties.OutcomeFailed, b.Message
	default:
		op.Outcome, op.Error = properties.OutcomeFailed, fmt.Sprintf("ack answered %T", ans.Body)
	}
}

// drainClient is the client index the drain's operations carry: one past
// the workload's clients.
func (r *run) drainClient() int { return r.wl.Config().Clients }

// withDrain returns h with the drain's operations appended, numbered on
// from h's last.
func (r *run) withDrain(h *properties.History) *properties.History {
	next := uint64(len(h.Ops)) + 1
	if n := len(h.Ops); n > 0 {
		next = h.Ops[n-1].ID + 1
	}
	for i := range r.drainSt.ops {
		op := r.drainSt.ops[i]
		op.ID = next
		next++
		h.Ops = append(h.Ops, op)
	}
	return h
}

// foldErrors is the first of errs with how many more there were (what),
// or nil when there are none.
func foldErrors(errs []error, what string) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return fmt.Errorf("%w; and %d more %s", errs[0], len(errs)-1, what)
}
