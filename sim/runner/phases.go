package runner

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/wire"
)

// quiesceStepNs is how often quiesce looks whether the cluster has settled.
const quiesceStepNs = 100_000_000

// liveness is the phase after heal: within LivenessBudgetNs every broker
// runs, every membership change (a replaced broker's) is done, so the
// cluster is back at full strength, every group has a leader, and every
// stream shard accepts a commit from the probe. Whatever is still pending
// at the budget is a Liveness violation naming it.
func (r *run) liveness() {
	w := r.c.World
	end := w.NowNs() + r.opts.LivenessBudgetNs
	err := w.RunUntil(func() (bool, string) {
		done, pending := r.c.AllLed()
		if done && r.c.Running() < r.c.Brokers() {
			return false, fmt.Sprintf("%d of %d brokers running (failures %d)", r.c.Running(), r.c.Brokers(), len(r.c.Failures()))
		}
		if done {
			return r.c.MembershipSettled()
		}
		return done, pending
	}, r.opts.LivenessBudgetNs)
	if err != nil {
		r.violate(properties.InvariantLiveness, r.withLeaderless(r.withLastFailure(err)))
		return
	}
	for _, stream := range streamNames(r.opts.Streams) {
		for shard := uint32(0); shard < r.opts.Shards; shard++ {
			if err := r.livenessCommit(stream, shard, end); err != nil {
				r.violate(properties.InvariantLiveness, err)
				return
			}
		}
	}
}

// withLastFailure adds the brokers' most recent fail-stop or failed boot
// to a liveness error: why a broker is not back is the first question.
func (r *run) withLastFailure(err error) error {
	fs := r.c.Failures()
	if len(fs) == 0 {
		return err
	}
	last := fs[len(fs)-1]
	return fmt.Errorf("%w; %d broker failures, the last: broker %d at %d ns: %v", err, len(fs), last.Broker, last.AtNs, last.Err)
}

// livenessCommit sends one commit to a shard through the probe and
// requires it written before endNs.
func (r *run) livenessCommit(stream string, shard uint32, endNs int64) error {
	w := r.c.World
	sc := livenessScope(stream, shard)
	g := r.c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
	if g == 0 {
		return fmt.Errorf("shard %s has no raft group", sc)
	}
	left := endNs - w.NowNs()
	if left <= 0 {
		return fmt.Errorf("shard %s: liveness budget %d ns spent before its commit", sc, r.opts.LivenessBudgetNs)
	}
	req := &wire.Request{Scope: sc, Body: &wire.Commit{Record: felix.Record{Event: felix.EventPublish,
		Payload: []byte("liveness"), Ops: []felix.StateOp{{Kind: felix.OpPut, Key: "live", Value: []byte("1")}}}}}
	for {
		ans, err := r.probe.Call(r.c, g, req, left)
		if err != nil {
			return fmt.Errorf("shard %s (group %d) accepted no commit within %d ns of heal: %w; %s", sc, g, r.opts.LivenessBudgetNs, err, r.whyStuck(g))
		}
		// Unavailable promises nothing was proposed (raft dropped the
		// proposal as leadership moved, or a pending table was full):
		// a transient refusal, sent again while the budget lasts.
		// FeatureNotFinalized is transient too after a rolling upgrade's
		// heal: the finalize and each shard's marker are on their way.
		if e, ok := ans.Body.(*wire.Error); ok && (e.Code == wire.CodeUnavailable || e.Code == wire.CodeFeatureNotFinalized && r.plan.UpgradesFleet()) && w.NowNs()+quiesceStepNs < endNs {
			w.RunFor(quiesceStepNs)
			left = endNs - w.NowNs()
			continue
		}
		if _, ok := ans.Body.(*wire.Written); !ok {
			return fmt.Errorf("shard %s (group %d): liveness commit answered %v", sc, g, ans.Body)
		}
		return nil
	}
}

// quiesce runs until every workload call has completed, every running
// broker has applied everything its group committed, all brokers agreeing
// on each group's commit index, and the relay has drained every scope's
// outbox since the commit indexes last moved; within QuiesceBudgetNs, or
// a Quiesce violation names what is still open.
func (r *run) quiesce() {
	w := r.c.World
	end := w.NowNs() + r.opts.QuiesceBudgetNs
	lastCommits := uint64(0)
	for {
		open := r.wl.Open()
		lag, lagGroup := r.lagging()
		if c := r.commitSum(); open > 0 || lag != "" || c != lastCommits {
			r.relay.MarkQuiesce() // the relay must read again past what moved
			lastCommits = c
		}
		drained, relayOpen := r.relay.Drained()
		if open == 0 && lag == "" && drained {
			r.relayDrained = true
			return
		}
		if w.NowNs() >= end {
			if lagGroup != 0 {
				lag += "; " + r.whyStuck(lagGroup)
			}
			r.violate(properties.InvariantQuiesce, fmt.Errorf("after %d ns: %d workload calls open; %s; %s", r.opts.QuiesceBudgetNs, open, lag, relayOpen))
			return
		}
		w.RunFor(min(quiesceStepNs, end-w.NowNs()))
	}
}

// commitSum adds up every running broker's commit index of every group:
// it changes whenever anything more is committed.
func (r *run) commitSum() uint64 {
	sum := uint64(0)
	for i := 0; i < r.c.Brokers(); i++ {
		if n := r.c.Node(cluster.RaftID(i)); n != nil {
			for _, g := range n.AppendGroupProgress(nil) {
				sum += g.Commit
			}
		}
	}
	return sum
}

// lagging describes the first group a running broker has not caught up
// on, and names it (0 when what lags is a broker that is not running), or
// returns "" when every group agrees and is applied.
func (r *run) lagging() (string, uint64) {
	commit := map[uint64]uint64{}
	for i := 0; i < r.c.Brokers(); i++ {
		n := r.c.Node(cluster.RaftID(i))
		if n == nil {
			return fmt.Sprintf("broker %d not running", r.c.IdentityOf(i)), 0
		}
		for _, g := range n.AppendGroupProgress(nil) {
			if g.Applied != g.Commit {
				return fmt.Sprintf("broker %d group %d applied %d of commit %d", n.ID(), g.ID, g.Applied, g.Commit), g.ID
			}
			if c, ok := commit[g.ID]; ok && c != g.Commit {
				return fmt.Sprintf("group %d commit index %d on broker %d, %d on an earlier one", g.ID, g.Commit, n.ID(), c), g.ID
			}
			commit[g.ID] = g.Commit
		}
	}
	return "", 0
}
