package scenario

import (
	"fmt"
	"strings"

	"github.com/felixsim/felixsim/client"
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
)

// Drain limits: a drain fetches up to drainFetchMax records at a time with
// a short lease, and waits drainWaitNs after a fetch that handed out
// nothing (leases still live) before it looks again, for at most
// WaitBudgetNs of simulated time.
const (
	drainFetchMax = 256
	drainLeaseNs  = 300_000_000
	drainWaitNs   = 100_000_000
)

// cmdGroupDrain: group drain TENANT NS STREAM/SHARD GROUP [--client c]
// fetches and acks the group until its committed position is the shard's
// tail on the group's leader, as a run's drain phase does. Its fetches and
// acks join the history, and check then judges that every record the
// shard holds was handed out by some successful fetch of the group
// (GroupDeliversEveryRecord).
func (r *Runner) cmdGroupDrain(a *args) (string, error) {
	who, err := r.clientOf(a)
	if err != nil {
		return "", err
	}
	p := a.positional(4, 4, "group drain TENANT NS STREAM/SHARD GROUP")
	if p == nil {
		return "", nil
	}
	sc, err := r.scopeArg(p[0], p[1], p[2])
	if err != nil {
		return "", err
	}
	k := properties.GroupKey{Scope: sc, Group: p[3]}
	endNs := r.c.World.NowNs() + WaitBudgetNs
	var handed []string
	for {
		committed, tail, ok := r.groupProgress(k)
		if ok && committed == tail {
			r.drained = append(r.drained, k)
			if len(handed) == 0 {
				return fmt.Sprintf("drained at offset %d: nothing handed out", tail), nil
			}
			return fmt.Sprintf("drained at offset %d: handed out %s", tail, strings.Join(handed, " ")), nil
		}
		if r.c.World.NowNs() >= endNs {
			return "", fmt.Errorf("group %q of %s not drained within %s: committed position %d of tail %d", k.Group, sc, formatNs(WaitBudgetNs), committed, tail)
		}
		ents, err := r.drainFetch(who, k)
		if err != nil {
			return "", err
		}
		if len(ents) == 0 {
			r.c.World.RunFor(drainWaitNs)
			continue
		}
		for _, e := range ents {
			handed = append(handed, fmt.Sprint(e.Offset))
			if err := r.drainAck(who, k, e.Offset); err != nil {
				return "", err
			}
		}
	}
}

// groupProgress is k's committed position and its shard's tail on the
// group's leader (ok false while the group has no leader, or the scope no
// records).
func (r *Runner) groupProgress(k properties.GroupKey) (committed, tail uint64, ok bool) {
	group := r.c.RaftGroupOf(k.Scope.Namespace, k.Scope.Stream, k.Scope.Shard)
	lead, led := r.c.Leader(group)
	n := r.c.Node(lead)
	if !led || n == nil {
		return 0, 0, false
	}
	for _, g := range n.ReplicaState().RaftGroups {
		for _, s := range g.Scopes {
			if s.Scope == k.Scope {
				tail = s.Shard.NextOffset
			}
		}
	}
	for _, sg := range n.ConsumerGroups() {
		if sg.Scope != k.Scope {
			continue
		}
		for _, g := range sg.Groups {
			if g.Name == k.Group {
				committed = g.CommittedOffset
			}
		}
	}
	return committed, tail, true
}

// drainFetch is one history-recorded fetch of the drain.
func (r *Runner) drainFetch(who caller, k properties.GroupKey) ([]felix.Entry, error) {
	i := r.begin(properties.HistoryOp{Kind: properties.HistoryGroupFetch, Scope: k.Scope, Group: k.Group, MaxEntries: drainFetchMax}, who.idx)
	pf, err := who.proc.Client.GroupFetch(who.proc.NowNs(), k.Scope, k.Group, drainFetchMax, drainLeaseNs)
	var ents []felix.Entry
	_, werr := r.complete(pending("group drain fetch", pf, err, func(d client.Deliveries, err error) (string, error) {
		op := r.finish(i, err)
		if err == nil {
			op.Entries, ents = d.Entries, d.Entries
		}
		return "", nil
	}))
	return ents, werr
}

// drainAck is one history-recorded ack of the drain.
func (r *Runner) drainAck(who caller, k properties.GroupKey, off uint64) error {
	i := r.begin(properties.HistoryOp{Kind: properties.HistoryGroupAck, Scope: k.Scope, Group: k.Group, AckOffset: off}, who.idx)
	pa, err := who.proc.Client.GroupAck(who.proc.NowNs(), k.Scope, k.Group, off)
	_, werr := r.complete(pending("group drain ack", pa, err, func(_ struct{}, err error) (string, error) {
		r.finish(i, err)
		return "", nil
	}))
	return werr
}
