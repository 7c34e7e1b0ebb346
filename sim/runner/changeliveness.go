package runner

import (
	"slices"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/wire"
)

// The change probe: while a membership change is in flight (the
// cluster's operator has membership work pending, from the moment it
// starts until every group reached the target: cluster.MembershipSettled),
// the liveness probe writes to every stream shard group of the workload's
// streams, one write per group at a time, re-sent to the leader of the
// moment until it is answered Written. Each step (every changeStepNs) it
// also looks whether the group is majority-connected: in every voter set
// a running broker holds for the group, a majority of the voters are
// running (up, not paused, not fail-stopped, clock not set back) and
// linked both ways with each other and with the probe, each link at its
// baseline, and the probe reaches every running broker (majorityConnected).
// A link under a fault (loss, latency, duplication, reordering) does not
// count: latency near the election timeout makes any raft group's
// leadership flap, change or no change, and this check judges the change,
// on a calm network. A write is sent only
// while both hold, during the fault phase; it is recorded, sent time,
// acknowledgement time and the last time both conditions held before the
// acknowledgement, once it is acknowledged or the conditions break, and
// properties.WritesAckedDuringChange judges the records against
// Options.ChangeLivenessBudgetNs. The budget only judges: the probe's
// traffic, and so the trace, is the same for any budget.
//
// The probe starts when the operator starts membership work
// (cluster.Config.MembershipBegun) and stops once nothing is in flight
// and no write is open, so a run without membership changes sends
// nothing and schedules nothing.
const (
	// changeStepNs is how often the change probe looks and sends.
	changeStepNs = 100_000_000
	// changeAttemptNs is how long one attempt waits for its answer before
	// the write is sent again (at once when the group's leader changed).
	changeAttemptNs = 200_000_000
	// changeWritesMax caps the writes recorded; past it no new write is
	// sent (overflow policy: the probe stops judging, counted in
	// ChangeCounts.Capped).
	changeWritesMax = 1 << 14
	// changeStaleMax caps the attempts whose answers are still taken after
	// their write closed; the oldest is forgotten when full, and any after
	// changeStaleForgetNs (no answer comes that late: a broker's pending
	// write expires after 5 s, a paused one holds messages for 1 s at most).
	changeStaleMax      = 4096
	changeStaleForgetNs = 30_000_000_000
	// changeAttemptsMax caps one open write's attempts whose answers are
	// looked at; when full, the oldest moves to the stale list.
	changeAttemptsMax = 64
)

// changeProbe is the change probe's state.
type changeProbe struct {
	c     *cluster.Cluster
	probe *cluster.Probe
	// probeSimID is the probe's world slot; scopes are where it writes,
	// one per stream shard; it sends new writes only before sendUntilNs
	// (0: always).
	probeSimID  int
	scopes      []felix.Scope
	sendUntilNs int64
	groups      []changeGroup
	writes      []properties.ChangeWrite
	// stale are attempts of closed writes whose answers are still taken
	// (and dropped) as they come, so the probe's table never fills.
	stale  []staleAttempt
	armed  bool
	capped bool
	// voterSets is majorityConnected's scratch.
	voterSets [][]uint64
}

// staleAttempt is an attempt of a closed write and when it was sent.
type staleAttempt struct {
	id     uint64
	sentNs int64
}

// changeGroup is one stream shard group and its open write, if any.
type changeGroup struct {
	id    uint64
	scope felix.Scope
	open  bool
	w     properties.ChangeWrite
	// attempts are the open write's attempts, the last one current;
	// attemptNs is when the current one was sent, and attemptTo to whom.
	attempts  []uint64
	attemptNs int64
	attemptTo uint64
}

// membershipBegun starts the change probe (made on first use) when the
// operator starts membership work (cluster.Config.MembershipBegun): it
// writes to the liveness scope of every workload stream shard during the
// fault phase.
func (r *run) membershipBegun() {
	if r.change == nil {
		var scopes []felix.Scope
		for _, stream := range streamNames(r.opts.Streams) {
			for shard := uint32(0); shard < r.opts.Shards; shard++ {
				scopes = append(scopes, livenessScope(stream, shard))
			}
		}
		r.change = &changeProbe{c: r.c, probe: r.probe, probeSimID: WorldNodes(r.opts) - 2, scopes: scopes, sendUntilNs: r.opts.DurationNs}
	}
	r.change.begun()
}

// begun arms the probe's next step unless one is scheduled; the first
// call lists the scopes' raft groups.
func (cp *changeProbe) begun() {
	if cp.groups == nil {
		for _, sc := range cp.scopes {
			cp.groups = append(cp.groups, changeGroup{id: cp.c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard), scope: sc})
		}
	}
	if cp.armed {
		return
	}
	cp.armed = true
	w := cp.c.World
	w.At(w.NowNs()+changeStepNs, 0, cp.step)
}

// step takes answers, judges and sends for every group, and schedules the
// next step while a change is in flight or a write is open.
func (cp *changeProbe) step() {
	cp.armed = false
	c := cp.c
	now := c.World.NowNs()
	settled, _ := c.MembershipSettled()
	cp.takeStale()
	open := false
	for i := range cp.groups {
		cg := &cp.groups[i]
		held := !settled && cp.majorityConnected(cg.id)
		cp.stepGroup(cg, now, held)
		open = open || cg.open
	}
	if !settled || open {
		cp.begun()
	}
}

// stepGroup moves one group's write on: acknowledged, broken off,
// re-sent, or (with none open) a new one sent.
func (cp *changeProbe) stepGroup(cg *changeGroup, now int64, held bool) {
	if cg.open {
		switch cp.poll(cg) {
		case pollWritten:
			cg.w.AckedNs = now
			cp.close(cg)
			return
		case pollRetry:
			if held {
				cp.send(cg, now)
			}
		}
		if !held {
			cp.close(cg)
			return
		}
		cg.w.HeldUntilNs = now
		return
	}
	if held && (cp.sendUntilNs == 0 || now < cp.sendUntilNs) && !cp.capped {
		cg.open, cg.w, cg.attempts = true, properties.ChangeWrite{Group: cg.id, SentNs: now, HeldUntilNs: now}, cg.attempts[:0]
		cp.send(cg, now)
	}
}

// pollResult is what an open write's current attempt says.
type pollResult uint8

const (
	pollWaiting pollResult = iota + 1
	pollWritten
	pollRetry
)

// poll takes the answers to every attempt of cg's open write: Written by
// any of them acknowledges it; otherwise the current attempt is retried
// once answered (with anything else), older than changeAttemptNs, or sent
// to a broker that no longer leads the group.
func (cp *changeProbe) poll(cg *changeGroup) pollResult {
	out := pollWaiting
	lead, _ := cp.c.Leader(cg.id)
	if len(cg.attempts) == 0 || cp.c.World.NowNs()-cg.attemptNs >= changeAttemptNs || lead != cg.attemptTo {
		out = pollRetry
	}
	for i, id := range cg.attempts {
		ans, ok := cp.probe.Take(id)
		if !ok {
			continue
		}
		if _, written := ans.Body.(*wire.Written); written {
			return pollWritten
		}
		if i == len(cg.attempts)-1 {
			out = pollRetry
		}
	}
	return out
}

// send sends cg's open write to the group's leader of the moment (none
// known: nothing is sent, and the next step tries again).
func (cp *changeProbe) send(cg *changeGroup, now int64) {
	lead, ok := cp.c.Leader(cg.id)
	if !ok {
		return
	}
	req := &wire.Request{Scope: cg.scope, Body: &wire.Publish{Record: felix.Record{Event: felix.EventPublish, Payload: []byte("change")}}}
	if len(cg.attempts) == changeAttemptsMax {
		cp.retire(cg.attempts[0], cg.attemptNs)
		cg.attempts = append(cg.attempts[:0], cg.attempts[1:]...)
	}
	cg.attempts = append(cg.attempts, cp.probe.Send(lead, req))
	cg.attemptNs, cg.attemptTo = now, lead
}

// retire keeps an attempt whose answer no write waits for any more, so
// that its answer is still taken when it comes.
func (cp *changeProbe) retire(id uint64, sentNs int64) {
	if len(cp.stale) == changeStaleMax {
		cp.stale = cp.stale[1:]
	}
	cp.stale = append(cp.stale, staleAttempt{id: id, sentNs: sentNs})
}

// close records cg's open write and keeps its unanswered attempts' ids.
func (cp *changeProbe) close(cg *changeGroup) {
	cg.open = false
	cp.writes = append(cp.writes, cg.w)
	cp.capped = len(cp.writes) >= changeWritesMax
	for _, id := range cg.attempts {
		cp.retire(id, cg.attemptNs)
	}
	cg.attempts = cg.attempts[:0]
}

// takeStale drops the answers that came for closed writes' attempts, and
// forgets attempts older than changeStaleForgetNs.
func (cp *changeProbe) takeStale() {
	now := cp.c.World.NowNs()
	kept := cp.stale[:0]
	for _, a := range cp.stale {
		if _, ok := cp.probe.Take(a.id); !ok && now-a.sentNs < changeStaleForgetNs {
			kept = append(kept, a)
		}
	}
	cp.stale = kept
}

// majorityConnected reports whether group is majority-connected now:
// majorityHeld over the running brokers, the voter sets every broker up
// holds for the group and the world's links at their baseline (not cut,
// no link fault on; world.World.LinkAtBaseline), provided the client reaches
// every running broker (one it does not reach may lead the group, its
// writes out of the client's reach). A broker runs when it is up (not
// paused), not fail-stopped, and its clock is not set back (a clock moved
// back holds the timers the broker armed, its ticks and group-commit
// window among them, until it reads what it read before: a broker that
// processes nothing; world.World.ClockSetBack).
func (cp *changeProbe) majorityConnected(group uint64) bool {
	c := cp.c
	cp.voterSets = cp.voterSets[:0]
	var running []uint64 // raft ids, by slot
	for slot := 0; slot < c.Brokers(); slot++ {
		id := c.IdentityOf(slot)
		n := c.Node(id)
		if n == nil {
			continue
		}
		if voters, _, ok := n.Membership(group); ok && len(voters) > 0 {
			cp.voterSets = append(cp.voterSets, voters)
		}
		if !c.World.ClockSetBack(slot) {
			running = append(running, id)
		}
	}
	w, probe := c.World, cp.probeSimID
	linked := func(a, b uint64) bool {
		sa, sb := cluster.SimID(a), cluster.SimID(b)
		return w.LinkAtBaseline(sa, sb) && w.LinkAtBaseline(sb, sa)
	}
	reached := func(a uint64) bool {
		sa := cluster.SimID(a)
		return w.LinkAtBaseline(sa, probe) && w.LinkAtBaseline(probe, sa)
	}
	for _, id := range running {
		if !reached(id) {
			return false // it may lead the group, out of the client's reach
		}
	}
	return majorityHeld(running, cp.voterSets, linked, reached)
}

// majorityHeld reports whether some set of the running brokers, linked
// both ways with each other (linked) and with the client (reached), holds
// a majority of every voter set in voterSets (none: false). running has
// at most node.PeersMax brokers, so every subset is tried.
func majorityHeld(running []uint64, voterSets [][]uint64, linked func(a, b uint64) bool, reached func(a uint64) bool) bool {
	if len(voterSets) == 0 {
		return false
	}
	for mask := uint64(1); mask < 1<<uint(len(running)); mask++ {
		if clique(running, mask, linked, reached) && majorityOfEvery(running, mask, voterSets) {
			return true
		}
	}
	return false
}

// clique reports whether the brokers of running in mask are linked both
// ways with each other and with the client.
func clique(running []uint64, mask uint64, linked func(a, b uint64) bool, reached func(a uint64) bool) bool {
	for i, a := range running {
		if mask>>uint(i)&1 == 0 {
			continue
		}
		if !reached(a) {
			return false
		}
		for j := i + 1; j < len(running); j++ {
			if mask>>uint(j)&1 == 1 && !linked(a, running[j]) {
				return false
			}
		}
	}
	return true
}

// majorityOfEvery reports whether the brokers of running in mask hold a
// majority of every voter set.
func majorityOfEvery(running []uint64, mask uint64, voterSets [][]uint64) bool {
	for _, voters := range voterSets {
		in := 0
		for i, id := range running {
			if mask>>uint(i)&1 == 1 && slices.Contains(voters, id) {
				in++
			}
		}
		if 2*in <= len(voters) {
			return false
		}
	}
	return true
}

// ChangeCounts is what the change probe did: writes judged (sent with the
// conditions holding), how many were acknowledged, the longest time to an
// acknowledgement, and whether the cap cut it short.
type ChangeCounts struct {
	Writes, Acked int
	AckNsMax      int64
	Capped        bool
	BudgetNs      int64
	HeldLongestNs int64
}

// changeResult judges the probe's writes and records its counts.
func (r *run) changeResult() {
	cp := r.change
	if cp == nil {
		return
	}
	budget := r.opts.changeLivenessBudgetNs()
	cc := cp.counts(budget)
	r.res.ChangeLiveness = &cc
	r.counts.AddN(coverage.ChangeWriteAcked, uint64(cc.Acked))
	r.violate(properties.InvariantLivenessDuringChange, cp.judge(budget))
}

// counts closes the writes still open (judged as they stand) and counts
// what the probe did.
func (cp *changeProbe) counts(budgetNs int64) ChangeCounts {
	for i := range cp.groups {
		if cp.groups[i].open {
			cp.close(&cp.groups[i])
		}
	}
	cc := ChangeCounts{Writes: len(cp.writes), Capped: cp.capped, BudgetNs: budgetNs}
	for _, w := range cp.writes {
		if w.AckedNs != 0 {
			cc.Acked++
			cc.AckNsMax = max(cc.AckNsMax, w.AckedNs-w.SentNs)
		}
		cc.HeldLongestNs = max(cc.HeldLongestNs, w.HeldUntilNs-w.SentNs)
	}
	return cc
}

// judge is LivenessDuringChange over the writes recorded so far, open
// ones as they stand.
func (cp *changeProbe) judge(budgetNs int64) error {
	ws := cp.writes
	for i := range cp.groups {
		if cp.groups[i].open {
			ws = append(ws[:len(ws):len(ws)], cp.groups[i].w)
		}
	}
	return properties.WritesAckedDuringChange(ws, budgetNs)
}

// ChangeProbe is the change probe for a caller that builds its own
// cluster, such as the scenario runner: pass Begun as the cluster's
// MembershipBegun hook, Bind the cluster once built, and read Violations
// whenever a verdict is wanted.
type ChangeProbe struct {
	cp       *changeProbe
	budgetNs int64
}

// NewChangeProbe returns a change probe that writes through probe (world
// slot probeSimID) to scopes, one per stream shard, while a membership
// change is in flight, judged against budgetNs (0: the default).
func NewChangeProbe(probe *cluster.Probe, probeSimID int, scopes []felix.Scope, budgetNs int64) *ChangeProbe {
	if budgetNs == 0 {
		budgetNs = ChangeLivenessBudgetNsDefault
	}
	return &ChangeProbe{cp: &changeProbe{probe: probe, probeSimID: probeSimID, scopes: slices.Clone(scopes)}, budgetNs: budgetNs}
}

// Bind tells the probe the cluster it writes to; call it before the
// cluster's world runs.
func (k *ChangeProbe) Bind(c *cluster.Cluster) { k.cp.c = c }

// Begun is the cluster's MembershipBegun hook.
func (k *ChangeProbe) Begun() { k.cp.begun() }

// Violations returns the LivenessDuringChange violation over the writes so
// far, if any.
func (k *ChangeProbe) Violations() []Violation {
	if err := k.cp.judge(k.budgetNs); err != nil {
		return []Violation{violationOf(properties.InvariantLivenessDuringChange, err)}
	}
	return nil
}

// ProbeScopes are the liveness tenant's scopes of every stream shard of
// streams: where a change probe writes, records no history holds (the
// replica checks judge them without a client's intent, as they do the
// liveness probe's).
func ProbeScopes(streams []node.StreamSpec) []felix.Scope {
	var out []felix.Scope
	for _, s := range streams {
		for sh := uint32(0); sh < s.Shards; sh++ {
			out = append(out, felix.Scope{Tenant: livenessTenant, Namespace: s.Namespace, Stream: s.Stream, Shard: sh})
		}
	}
	return out
}
