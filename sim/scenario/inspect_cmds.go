package scenario

import (
	"fmt"
	"strings"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/runner"
)

// scopeStates returns broker id's scopes of the group STREAM/SHARD names.
func (r *Runner) scopeStates(p []string) (uint64, []node.ScopeState, error) {
	id, err := r.broker(p[0])
	if err != nil {
		return 0, nil, err
	}
	group, _, err := r.group(p[1])
	if err != nil {
		return 0, nil, err
	}
	n := r.c.Node(id)
	if n == nil {
		return id, nil, fmt.Errorf("broker %d is down", id)
	}
	for _, g := range n.ReplicaState().RaftGroups {
		if g.ID == group {
			return id, g.Scopes, nil
		}
	}
	return id, nil, fmt.Errorf("broker %d hosts no group %d", id, group)
}

// cmdLog: log N STREAM/SHARD prints broker N's retained log of every
// tenant's scope on that shard.
func (r *Runner) cmdLog(a *args) (string, error) {
	p := a.positional(2, 2, "log N STREAM/SHARD")
	if p == nil {
		return "", nil
	}
	_, scopes, err := r.scopeStates(p)
	if err != nil {
		return "", err
	}
	if len(scopes) == 0 {
		return "no scopes", nil
	}
	var b strings.Builder
	for i, s := range scopes {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s: offsets %d..%d", s.Scope.Tenant, s.Shard.FirstOffset, s.Shard.NextOffset)
		for _, e := range s.Shard.Entries {
			b.WriteString("\n  " + entryText(e))
		}
	}
	return b.String(), nil
}

// cmdState: state N STREAM/SHARD prints broker N's keyed state of every
// tenant's scope on that shard.
func (r *Runner) cmdState(a *args) (string, error) {
	p := a.positional(2, 2, "state N STREAM/SHARD")
	if p == nil {
		return "", nil
	}
	_, scopes, err := r.scopeStates(p)
	if err != nil {
		return "", err
	}
	if len(scopes) == 0 {
		return "no scopes", nil
	}
	var b strings.Builder
	for i, s := range scopes {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s: next offset %d", s.Scope.Tenant, s.Shard.NextOffset)
		for _, kv := range s.Shard.State {
			fmt.Fprintf(&b, "\n  %s = '%s' version %d", kv.Key, kv.Value, kv.Version)
		}
	}
	return b.String(), nil
}

// cmdRaftLog: raft-log N group G|STREAM/SHARD prints the group's hard
// state and stored raft entries (index, term, size) on broker N.
func (r *Runner) cmdRaftLog(a *args) (string, error) {
	p := a.positional(3, 3, "raft-log N group G|STREAM/SHARD|meta")
	if p == nil {
		return "", nil
	}
	if p[1] != "group" {
		return "", fmt.Errorf("raft-log refused: want \"raft-log N group G\"")
	}
	id, err := r.broker(p[0])
	if err != nil {
		return "", err
	}
	group, err := parseUint("group", p[2])
	if err != nil {
		if group, _, err = r.group(p[2]); err != nil {
			return "", err
		}
	}
	n := r.c.Node(id)
	if n == nil {
		return "", fmt.Errorf("broker %d is down", id)
	}
	logs, err := n.StoredRaftLogs()
	if err != nil {
		return "", err
	}
	for _, g := range logs {
		if g.Group != group {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "group %d: term %d vote %d commit %d", g.Group, g.HardState.Term, g.HardState.Vote, g.HardState.Commit)
		for _, e := range g.Entries {
			fmt.Fprintf(&b, "\n  %d/%d %dB", e.Index, e.Term, len(e.Data))
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("broker %d hosts no group %d", id, group)
}

// cmdLeaders prints each group's leader and term, and the brokers down.
func (r *Runner) cmdLeaders(a *args) (string, error) {
	if a.positional(0, 0, "leaders") == nil && a.e != nil {
		return "", nil
	}
	c, err := r.cluster()
	if err != nil {
		return "", err
	}
	var lines []string
	lines = append(lines, "meta: "+r.leaderText(node.MetaGroup))
	for _, s := range c.Config().Streams {
		for sh := uint32(0); sh < s.Shards; sh++ {
			lines = append(lines, fmt.Sprintf("%s/%d: %s", s.Stream, sh, r.leaderText(c.RaftGroupOf(s.Namespace, s.Stream, sh))))
		}
	}
	if down := c.Snapshot().Down; len(down) > 0 {
		lines = append(lines, "down: "+ids(down))
	}
	return strings.Join(lines, "\n"), nil
}

func (r *Runner) leaderText(group uint64) string {
	id, ok := r.c.Leader(group)
	if !ok {
		return "no leader"
	}
	term, _ := r.c.Node(id).LeaderTerm(group)
	return fmt.Sprintf("broker %d term %d", id, term)
}

// cmdCheck runs every property on a snapshot of the cluster now and on
// the scenario's history so far, and reports what the in-run checks saw
// since the cluster started (each applied record, durable round and
// boot) and, with brokers --validate-trace, the trace validation's
// rejection; it prints "ok" or each violation.
func (r *Runner) cmdCheck(a *args) (string, error) {
	if a.positional(0, 0, "check") == nil && a.e != nil {
		return "", nil
	}
	if r.crash != "" {
		return violationsText(append(r.inRun.Found(), runner.Violation{Invariant: properties.InvariantCrash, Message: r.crash})), nil
	}
	c, err := r.cluster()
	if err != nil {
		return "", err
	}
	h := r.history()
	ledger, err := r.ledgerOf(c)
	if err != nil {
		return "", err
	}
	vs := r.inRun.Found()
	vs = append(vs, runner.CheckCluster(c, h, func(ns, stream string) (uint32, bool) {
		for _, s := range c.Config().Streams {
			if s.Namespace == ns && s.Stream == stream {
				return s.Shards, true
			}
		}
		return 0, false
	}, r.steps, ledger)...)
	vs = append(vs, r.groupViolations(c, h)...)
	vs = append(vs, r.inRun.GenerationViolations()...)
	vs = append(vs, r.inRun.LiveViolations(h)...)
	if r.trace != nil {
		vs = append(vs, r.trace.Violations()...)
	}
	vs = append(vs, r.promotions.Violations()...)
	if r.change != nil {
		vs = append(vs, r.change.Violations()...)
	}
	for _, err := range r.incarnationViolations(h) {
		vs = append(vs, runner.Violation{Invariant: properties.InvariantIncarnationsApart, Message: err.Error()})
	}
	if len(r.delivered) > 0 {
		ref := properties.LongestLogs(runner.ReplicaLogsOf(c.Snapshot()))
		vs = append(vs, runner.OutboxViolations(&ref, r.delivered, false)...)
	}
	if r.liveness != "" {
		vs = append(vs, runner.Violation{Invariant: properties.InvariantLiveness, Message: r.liveness})
	}
	if len(vs) == 0 {
		return fmt.Sprintf("ok (%d operations)", len(h.Ops)), nil
	}
	return violationsText(vs), nil
}

// violationsText renders violations one a line.
func violationsText(vs []runner.Violation) string {
	var lines []string
	for _, v := range vs {
		lines = append(lines, fmt.Sprintf("violation %s: %s", v.Invariant, v.Message))
	}
	return strings.Join(lines, "\n")
}

// history is the scenario's history so far.
func (r *Runner) history() *properties.History {
	h := &properties.History{Ops: append([]properties.HistoryOp(nil), r.hist.Ops...)}
	r.attachRequests(h.Ops)
	return h
}

// groupViolations runs the consumer-group properties: acked records are
// never handed out again, and, once every running broker has applied
// what its groups committed, every broker holds the same group state.
// Delivery of every record is judged as a run judges it after its drain
// phase, for the groups a group drain brought to their tail.
func (r *Runner) groupViolations(c *cluster.Cluster, h *properties.History) []runner.Violation {
	var out []runner.Violation
	add := func(name properties.InvariantName, err error) {
		if err != nil {
			out = append(out, runner.Violation{Invariant: name, Message: err.Error()})
		}
	}
	add(properties.InvariantGroupAckedNotRedelivered, properties.HistoryGroupAckedNotRedelivered(h))
	if len(r.drained) > 0 {
		ref := properties.LongestLogs(runner.ReplicaLogsOf(c.Snapshot()))
		add(properties.InvariantGroupDeliversEveryRecord, properties.HistoryGroupDeliversEveryRecord(h, &ref, r.drained))
	}
	if ok, _ := caughtUp(c); ok {
		add(properties.InvariantGroupStateAgreement, properties.GroupStatesAgree(runner.GroupReplicasOf(c.Snapshot())))
	}
	return out
}

// cmdMembership prints each raft group's applied membership as its
// leader holds it, and the broker replacements so far.
func (r *Runner) cmdMembership(a *args) (string, error) {
	if a.positional(0, 0, "membership") == nil && a.e != nil {
		return "", nil
	}
	c, err := r.cluster()
	if err != nil {
		return "", err
	}
	lines := []string{"meta: " + r.membershipText(node.MetaGroup)}
	for _, s := range c.Config().Streams {
		for sh := uint32(0); sh < s.Shards; sh++ {
			lines = append(lines, fmt.Sprintf("%s/%d: %s", s.Stream, sh, r.membershipText(c.RaftGroupOf(s.Namespace, s.Stream, sh))))
		}
	}
	for _, rp := range c.Replacements() {
		state := "pending"
		if rp.DoneNs != 0 {
			state = "done"
		}
		lines = append(lines, fmt.Sprintf("replaced: broker %d identity %d -> %d, %s", rp.Slot+1, rp.Old, rp.New, state))
	}
	return strings.Join(lines, "\n"), nil
}

// membershipText is group's voters and learners as its leader applied them.
func (r *Runner) membershipText(group uint64) string {
	id, ok := r.c.Leader(group)
	if !ok {
		return "no leader"
	}
	voters, learners, _ := r.c.Node(id).Membership(group)
	s := "voters " + ids(voters)
	if len(learners) > 0 {
		s += " learners " + ids(learners)
	}
	return s
}
