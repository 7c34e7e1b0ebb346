package node

// This file is the one place the broker's planted defects (Defects,
// config.go) are switched: each switch is a named hook the main path
// calls at the step it would change, and with every defect off each hook
// does what the broker does. A defect's switch is read nowhere else in
// node (sim/runner's defect table names this file, and a test there holds
// it to that). The store's and the client library's defects switch in
// logstore/defects.go and client/defects.go; statemachine's defect
// methods (AckOldestOnly, ApplyEventFirst, ...) are called from here.

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/logstore"
	"github.com/felixsim/felixsim/moment"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/wire"
	"go.etcd.io/raft/v3/raftpb"
)

// servedStaleRead is the StateReadWithoutReadIndex defect: a state read
// answered at once from this replica's applied state, leader or not,
// without ReadIndex. It reports whether it answered req.
func (n *Node) servedStaleRead(client uint64, req *wire.Request, g *raftGroup) bool {
	sg, ok := req.Body.(*wire.StateGet)
	if !ok || !n.cfg.Defects.StateReadWithoutReadIndex {
		return false
	}
	v := n.stateValue(g, req.Scope.Tenant, sg.Key) // planted bug
	n.trace.readStart(g, client, req.ID, req.Scope.Tenant, sg.Key)
	n.trace.stateRead(g, client, req.ID, req.Scope.Tenant, sg.Key, g.applied, v) // its read index: what it applied
	n.answer(client, req.ID, v)
	return true
}

// plantedWrite is the planted defects of a record write's proposal, in
// order: CommitIfCheckedAtProposal checks the condition now and proposes
// the record unconditionally, CommitAsTwoRecords proposes the event alone
// first, AckBeforeQuorum proposes and answers at once, and
// WritesWaitForLearner refuses while a learner lags. It returns the
// record left to propose, or answered when the write needs nothing more.
func (n *Node) plantedWrite(client uint64, req *wire.Request, g *raftGroup, rec felix.Record) (felix.Record, bool) {
	d := &n.cfg.Defects
	if d.CommitIfCheckedAtProposal && rec.Conditional {
		tail := uint64(0)
		if s := g.lookup(req.Scope.Tenant); s != nil {
			tail = s.NextOffset()
		}
		if rec.ExpectedOffset != tail {
			n.answer(client, req.ID, &wire.Refused{Tail: tail})
			return rec, true
		}
		rec.Conditional, rec.ExpectedOffset = false, 0
	}
	if d.CommitAsTwoRecords && len(rec.Ops) > 0 {
		event := felix.Record{Event: rec.Event, Payload: rec.Payload, Conditional: rec.Conditional, ExpectedOffset: rec.ExpectedOffset}
		n.proposeSilently(g, &command{kind: cmdWrite, scope: req.Scope, record: event})
		rec = felix.Record{Event: rec.Event, Ops: rec.Ops}
	}
	if d.AckBeforeQuorum && !rec.Conditional {
		n.proposeAndAckEarly(client, req, g, rec)
		return rec, true
	}
	if d.WritesWaitForLearner && n.learnerLagging(g) {
		n.answer(client, req.ID, &wire.Error{Code: wire.CodeUnavailable, Message: fmt.Sprintf("group %d holds writes while a learner catches up", g.id)})
		return rec, true
	}
	return rec, false
}

// proposeSilently proposes c with no client to answer (planted defects only).
func (n *Node) proposeSilently(g *raftGroup, c *command) {
	n.seq++
	c.proposer, c.incarnation, c.seq = n.cfg.ID, n.writes.incarnation, n.seq
	stampGeneration(g, c)
	if data, err := encodeCommand(c); err == nil {
		_ = n.raftPropose(g, data)
	}
}

// proposeAndAckEarly is the AckBeforeQuorum defect: propose, then answer
// at once with the offset this leader predicts for the record.
func (n *Node) proposeAndAckEarly(client uint64, req *wire.Request, g *raftGroup, rec felix.Record) {
	next := uint64(0)
	if s := g.lookup(req.Scope.Tenant); s != nil {
		next = s.NextOffset()
	}
	if g.early == nil {
		g.early = map[string]uint64{}
	}
	off := max(next, g.early[req.Scope.Tenant])
	g.early[req.Scope.Tenant] = off + 1
	n.proposeSilently(g, &command{kind: cmdWrite, scope: req.Scope, record: rec})
	n.answer(client, req.ID, &wire.Written{Offset: off})
}

// learnerLagging reports whether a learner of g (this node leading it)
// has not caught up (caughtUp): what the WritesWaitForLearner defect holds
// writes back for.
func (n *Node) learnerLagging(g *raftGroup) bool {
	if !g.isLeader {
		return false
	}
	for _, id := range g.confState.GetLearners() {
		if !n.caughtUp(g, id) {
			return true
		}
	}
	return false
}

// reproposalOf is what the ReproposePending defect keeps of a command it
// may propose again (nil: nothing, the defect off or c no record write).
func (n *Node) reproposalOf(c *command, data []byte) *reproposal {
	if n.cfg.Defects.ReproposePending && c.kind == cmdWrite {
		return &reproposal{data: data}
	}
	return nil
}

// ReproposeAfterTicks is how long the ReproposePending defect waits for a
// pending write to apply before it proposes the write again.
const ReproposeAfterTicks = 5

// reproposal is a pending write as the ReproposePending defect keeps it:
// the command's encoding, proposed again at most once.
type reproposal struct {
	data []byte
	done bool
}

// reproposePending is the ReproposePending defect (a no-op otherwise),
// at every tick: every pending record
// write this node proposed ReproposeAfterTicks or more ticks ago, whose
// group it still leads, is proposed again, once, with the same command.
// Whichever copy applies first answers the client; the other lands too.
// Like the other defects' silent proposals (proposeSilently), the second
// proposal is not in the abstract trace: traced, it is a second Propose of
// one request's command, which the model refuses wherever the trace is
// validated.
func (n *Node) reproposePending() {
	if !n.cfg.Defects.ReproposePending {
		return
	}
	for _, seq := range n.writes.order {
		w, ok := n.writes.bySeq[seq]
		if !ok || w.again == nil || w.again.done || n.ticks-w.arrivedTick < ReproposeAfterTicks {
			continue
		}
		g := n.raftGroup(w.group)
		if !g.isLeader {
			continue
		}
		w.again.done = true
		_ = n.raftPropose(g, w.again.data) // a dropped proposal is the original's fate too
	}
}

// dropWrites is the NotLeaderAfterPropose defect: a node that stops
// leading g answers every record write it proposed there and has not
// applied with NotLeader. A correct node leaves them pending: their proposals
// may yet commit under the new leader (and apply here, unanswered once
// the client has given up), so only the client's timeout may end them,
// as unknown.
func (n *Node) dropWrites(g *raftGroup) {
	if !n.cfg.Defects.NotLeaderAfterPropose {
		return
	}
	for _, w := range n.writes.takeGroupWrites(g.id) {
		n.answer(w.client, w.reqID, &wire.Error{Code: wire.CodeNotLeader, Message: fmt.Sprintf("node %d lost the lead of group %d", n.cfg.ID, g.id), LeaderHint: g.lead})
	}
}

// valueAtArrival is the StateReadValueAtArrival defect: the value a
// state read will answer, looked up as it arrives, before the ReadIndex
// barrier (nil when the defect is off: the read looks it up once its
// index is applied).
func (n *Node) valueAtArrival(g *raftGroup, tenant, key string) *wire.StateValue {
	if !n.cfg.Defects.StateReadValueAtArrival {
		return nil
	}
	return n.stateValue(g, tenant, key) // planted bug: the value before the barrier
}

// applyRecord applies rec to s: Apply, or under the PartialApply defect
// its event alone (ApplyEventFirst; holdStateBack keeps the state
// operations for applyLate).
func (n *Node) applyRecord(s *statemachine.Shard, rec *felix.Record, features statemachine.Features) (statemachine.Result, error) {
	if n.cfg.Defects.PartialApply {
		return s.ApplyEventFirst(rec, features)
	}
	return s.Apply(rec, features)
}

// holdStateBack is the PartialApply defect's hold (a no-op otherwise): the
// state operations of the record just written at offset in s wait for
// the next round (applyLate).
func (n *Node) holdStateBack(s *statemachine.Shard, ops []felix.StateOp, offset uint64) {
	if n.cfg.Defects.PartialApply {
		n.late = append(n.late, lateState{shard: s, ops: ops, offset: offset})
	}
}

// lateState is a record's state operations the PartialApply defect
// holds back until the next round.
type lateState struct {
	shard  *statemachine.Shard
	ops    []felix.StateOp
	offset uint64
}

// applyLate is the PartialApply defect's second step: apply the state
// operations held back in the previous round, in order.
func (n *Node) applyLate() {
	for i := range n.late {
		n.late[i].shard.ApplyStateLater(n.late[i].ops, n.late[i].offset)
	}
	clear(n.late)
	n.late = n.late[:0]
}

// partialCommit is the EarlyFinalize defect on a broker older than
// AtomicCommitVersionMin: it applies a commit record the way an old
// version would, as its event alone, dropping the state operations.
func (n *Node) partialCommit() bool {
	return n.cfg.Defects.EarlyFinalize && n.softwareVersion() < AtomicCommitVersionMin
}

// ackNotPersisted is the AckNotPersisted defect: an applied ack leaves
// its consumer group's row out of the round's store commit.
func (n *Node) ackNotPersisted() bool { return n.cfg.Defects.AckNotPersisted }

// fetchNowNs is the time a fetch's leases are judged by: the proposer's
// clock time carried in the command, so every replica applies the same
// fetch identically; under the LeaseByLocalClock defect, the applying
// replica's own clock.
func (n *Node) fetchNowNs(c *command) int64 {
	if n.cfg.Defects.LeaseByLocalClock {
		return n.host.NowNs()
	}
	return c.nowNs
}

// ack applies a group ack to s: Ack, or the planted defect's version.
func (n *Node) ack(s *statemachine.Shard, cmd statemachine.GroupAck) error {
	var err error
	switch {
	case n.cfg.Defects.RedeliverAcked:
		err = s.AckOldestOnly(cmd)
	case n.cfg.Defects.AckDropsOlderLeases:
		err = s.AckDropsOlderLeases(cmd)
	default:
		err = s.Ack(cmd)
	}
	if err == nil {
		n.reached.add(moment.GroupAckDurable)
	}
	return err
}

// installOldGroups is the InstallKeepsOldGroups defect: it replaces the
// consumer-group rows a snapshot install added to b (from index from on)
// by those of the groups the replica held before (old; none when the
// scope is new to it, as on a replacement broker), while memory holds
// the snapshot's.
func (n *Node) installOldGroups(b *logstore.Batch, from int, scope felix.Scope, old *statemachine.Shard) {
	if !n.cfg.Defects.InstallKeepsOldGroups {
		return
	}
	clear(b.ConsumerGroups[from:])
	b.ConsumerGroups = b.ConsumerGroups[:from]
	if old == nil {
		return
	}
	for _, gs := range old.Groups() {
		b.ConsumerGroups = append(b.ConsumerGroups, logstore.ConsumerGroupRow{Scope: scope, Group: gs})
	}
}

// storeDefects are the planted store bugs the node's defects select.
func (d *Defects) storeDefects() logstore.Defects {
	var out logstore.Defects
	if d.NoFsync {
		out |= logstore.DefectSkipFsync
	}
	if d.KeepStaleSuffix {
		out |= logstore.DefectKeepStaleSuffix
	}
	if d.RecoveryCutsLastCommit {
		out |= logstore.DefectCutLastTxn
	}
	return out
}

// persistedHardState is the hard state the node hands its store: raft's,
// or, under the VoteNotPersisted defect, a copy without the vote.
func (d *Defects) persistedHardState(hs *raftpb.HardState) *raftpb.HardState {
	if !d.VoteNotPersisted || hs.GetVote() == 0 {
		return hs
	}
	return &raftpb.HardState{Term: new(hs.GetTerm()), Commit: new(hs.GetCommit())}
}

// commitApart is the PositionApartFromState defect: the round's raft
// state and positions in one store commit, its log, state, outbox and
// group rows in a second. planted is false when the defect is off.
func (n *Node) commitApart(b *logstore.Batch) (planted bool, err error) {
	if !n.cfg.Defects.PositionApartFromState {
		return false, nil
	}
	first := &logstore.Batch{Groups: b.Groups, Positions: b.Positions}
	second := &logstore.Batch{Log: b.Log, State: b.State, Outbox: b.Outbox, ConsumerGroups: b.ConsumerGroups}
	for _, part := range []*logstore.Batch{first, second} {
		if !part.Empty() {
			if err := n.store.Commit(part); err != nil {
				return true, err
			}
		}
	}
	return true, nil
}

// unscopedOutboxTenant is the one tenant the UnscopedOutbox defect files
// every outbox row under, so that rows are keyed by (stream shard, offset)
// alone and tenants reusing an offset overwrite each other.
const unscopedOutboxTenant = "unscoped-outbox"

// outboxKey is the scope the outbox rows of scope are filed under: scope
// itself (the UnscopedOutbox defect drops the tenant).
func (n *Node) outboxKey(scope felix.Scope) felix.Scope {
	if n.cfg.Defects.UnscopedOutbox {
		scope.Tenant = unscopedOutboxTenant
	}
	return scope
}

// isUnscopedOutboxKey reports whether sc is the UnscopedOutbox defect's
// key, which has outbox rows and nothing else.
func (n *Node) isUnscopedOutboxKey(sc felix.Scope) bool {
	return n.cfg.Defects.UnscopedOutbox && sc.Tenant == unscopedOutboxTenant
}

// trimmedEnd is the end of the outbox rows a trim of [start, end) deletes:
// end, or, under the OutboxTrimOneShort defect, one short of it (memory
// moves the start to end all the same).
func (n *Node) trimmedEnd(start, end uint64) uint64 {
	if n.cfg.Defects.OutboxTrimOneShort && end > start {
		return end - 1
	}
	return end
}

// retainDropsOutbox is the RetainDropsOutbox defect (a no-op otherwise):
// with the records a retention step just dropped from tenant's scope s in
// g, it deletes their outbox rows, delivered or not, and moves the outbox
// start to the new window start.
func (n *Node) retainDropsOutbox(b *logstore.Batch, g *raftGroup, tenant string, s *statemachine.Shard) {
	if !n.cfg.Defects.RetainDropsOutbox {
		return
	}
	start, end := g.outboxStart[tenant], s.FirstOffset()
	key := n.outboxKey(g.scopeOf(tenant))
	for o := start; o < end; o++ {
		b.Outbox = append(b.Outbox, logstore.OutboxRow{Kind: logstore.WriteDelete, Scope: key, Offset: o})
	}
	if end > start {
		if g.outboxStart == nil {
			g.outboxStart = map[string]uint64{}
		}
		g.outboxStart[tenant] = end
	}
}

// retainLimit is the furthest a retention step may drop in s: the lowest
// committed position of its consumer groups (its tail when it has none).
// Under the RetainIgnoresGroups defect it is the tail.
func (n *Node) retainLimit(s *statemachine.Shard) uint64 {
	if n.cfg.Defects.RetainIgnoresGroups {
		return s.NextOffset()
	}
	return s.GroupsCommittedMin()
}

// versionsUnchecked is the EarlyFinalize defect: features are finalized
// and applied whatever versions the brokers run.
func (n *Node) versionsUnchecked() bool { return n.cfg.Defects.EarlyFinalize }

// checkVersions refuses features this node's software version is too old
// to run (checkVersionRuns); the EarlyFinalize defect lets them all
// through.
func (n *Node) checkVersions(features []string) error {
	err := checkVersionRuns(n.cfg.ID, n.softwareVersion(), features)
	if n.versionsUnchecked() {
		return nil
	}
	return err
}

// promoteBeforeCaughtUp is the PromoteBeforeCaughtUp defect: a learner
// whose leader has heard from it (active) or that matches any entry
// counts as caught up. planted is false when the defect is off.
func (n *Node) promoteBeforeCaughtUp(match uint64, active bool) (caught, planted bool) {
	if !n.cfg.Defects.PromoteBeforeCaughtUp {
		return false, false
	}
	return active || match > 0, true
}

// recreateKeepsState is the RecreateKeepsState defect: a stream created
// again keeps its scopes' records and state.
func (n *Node) recreateKeepsState() bool { return n.cfg.Defects.RecreateKeepsState }

// recreateStrandsGroups is the RecreateStrandsGroups defect: emptying a
// scope for its stream's new generation leaves its consumer groups (and
// outbox start) where the old generation had them.
func (n *Node) recreateStrandsGroups() bool { return n.cfg.Defects.RecreateStrandsGroups }

// snapshotWithoutGroups is the SnapshotWithoutGroups defect: a group
// snapshot built without its scopes' consumer groups.
func (n *Node) snapshotWithoutGroups() bool { return n.cfg.Defects.SnapshotWithoutGroups }

// ephemeralKey is the key an ephemeral shard's live subscribers of
// tenant are kept under: the tenant (the EphemeralUnscoped defect keys
// every tenant's alike).
func (n *Node) ephemeralKey(tenant string) string {
	if n.cfg.Defects.EphemeralUnscoped {
		return ""
	}
	return tenant
}

// newEphemeralScope is a new ephemeral scope, keeping read queues under
// the EphemeralReadKeepsQueue defect.
func (n *Node) newEphemeralScope() *ephemeralScope {
	return &ephemeralScope{keepQueue: n.cfg.Defects.EphemeralReadKeepsQueue}
}

// drain removes the k entries a read of s just handed out (the
// EphemeralReadKeepsQueue defect keeps them).
func (es *ephemeralScope) drain(s *ephemeralSub, k int) {
	if !es.keepQueue {
		s.queue = s.queue[k:]
	}
}

// commitToSubscribers is the EphemeralCommitToSubscribers defect: a
// request carrying a record on an ephemeral stream is served as a publish
// and answered Acked. It returns nil (the request is refused as it
// should be) when the defect is off or req carries no record.
func (n *Node) commitToSubscribers(es *ephemeralScope, req *wire.Request) wire.AnswerBody {
	rec := wire.RecordOf(req.Body)
	if rec == nil || !n.cfg.Defects.EphemeralCommitToSubscribers {
		return nil
	}
	es.publish(*rec)
	return &wire.Acked{}
}

// stateLeaseNs is the lease a fetch command's records are leased for in
// the state machine: the command's (under LeaseUnitSlip, a thousandth of
// it, at least 1 ns).
func (n *Node) stateLeaseNs(c *command) int64 {
	if n.cfg.Defects.LeaseUnitSlip {
		return max(c.leaseNs/1000, 1)
	}
	return c.leaseNs
}

// dropCommands is the hook where a node that stops leading g leaves its
// pending commands pending (their proposals may yet commit); under
// CommandsNotLeaderAfterPropose it answers them NotLeader instead.
func (n *Node) dropCommands(g *raftGroup) {
	if !n.cfg.Defects.CommandsNotLeaderAfterPropose {
		return
	}
	for _, w := range n.writes.takeWhere(func(w *pendingWrite) bool { return w.group == g.id && !w.write }) {
		n.answer(w.client, w.reqID, &wire.Error{Code: wire.CodeNotLeader, Message: fmt.Sprintf("node %d lost the lead of group %d", n.cfg.ID, g.id), LeaderHint: g.lead})
	}
}

// outboxReadFrom is the offset an outbox read of tenant's scope in g from
// offset from starts at: from (the outbox answers its rows at or above
// it); under OutboxReadFromWindow, no lower than the log's window start.
func (n *Node) outboxReadFrom(g *raftGroup, tenant string, from uint64) uint64 {
	if s := g.lookup(tenant); n.cfg.Defects.OutboxReadFromWindow && s != nil {
		return max(from, s.FirstOffset())
	}
	return from
}

// appliesDeleted is the hook where applying a write in a deleted
// stream's shard group, or in a generation other than the one it was
// accepted in, refuses it: false, unless DeletedStreamTakesWrites lets
// the write through.
func (n *Node) appliesDeleted(c *command) bool {
	return n.cfg.Defects.DeletedStreamTakesWrites && c.kind == cmdWrite
}

// liveRead serves subscriber client's read of at most entriesMax
// publishes from es: es.read, but under LiveReadWaitsForBatch a read that
// finds less than a full batch queued drains nothing (it still registers
// the subscriber and keeps it live).
func (n *Node) liveRead(es *ephemeralScope, client uint64, entriesMax int) wire.AnswerBody {
	if n.cfg.Defects.LiveReadWaitsForBatch && es.queued(client) < entriesMax {
		entriesMax = 0
	}
	return es.read(client, n.ticks, entriesMax)
}

// The planted bugs of the rare windows targeted faults reach: a lease read
// that trusts a leadership lost while the process was paused
// (LeaseReadByTicks, reached by pauseafter), and a restarted broker that
// answers a write with its earlier incarnation's proposal of the same
// sequence number (PendingMatchedBySeq, reached by restartafter's quick
// restart at pending_held or pending_held_young).

// leaseTicks is how long the LeaseReadByTicks defect trusts a leadership
// a ReadIndex confirmed, in the node's own ticks: half an election
// timeout, the usual margin of a leader lease (safe while every clock
// ticks at nearly one rate: no follower can elect another leader within
// an election timeout of the heartbeat it answered).
func (n *Node) leaseTicks() uint64 { return uint64(n.cfg.ElectionTicks / 2) }

// renewLease is the LeaseReadByTicks defect's lease: a ReadIndex that
// returned on a group this node leads confirms its leadership now, and
// the lease runs leaseTicks ticks from here.
func (n *Node) renewLease(gr *groupReady) {
	if n.cfg.Defects.LeaseReadByTicks && len(gr.rd.ReadStates) > 0 && gr.g.isLeader {
		gr.g.leaseUntil = n.ticks + n.leaseTicks()
	}
}

// leaseRead is the LeaseReadByTicks defect: a node that believes it leads
// g and holds a lease serves a state read from its applied state at once,
// without a ReadIndex. It reports whether it answered the read.
func (n *Node) leaseRead(client uint64, req *wire.Request, g *raftGroup, body *wire.StateGet) bool {
	if !n.cfg.Defects.LeaseReadByTicks || !g.isLeader || n.ticks >= g.leaseUntil {
		return false
	}
	v := n.stateValue(g, req.Scope.Tenant, body.Key) // planted bug: a leadership the ticks vouch for
	n.trace.readStart(g, client, req.ID, req.Scope.Tenant, body.Key)
	n.trace.stateRead(g, client, req.ID, req.Scope.Tenant, body.Key, g.applied, v) // its read index: what it applied
	n.answer(client, req.ID, v)
	return true
}

// takePending removes and returns the write this node proposed as
// (incarnation, seq): pendingWrites.take, but under the
// PendingMatchedBySeq defect an entry of an earlier incarnation takes the
// write this one gave the same seq.
func (n *Node) takePending(incarnation, seq uint64) *pendingWrite {
	if n.cfg.Defects.PendingMatchedBySeq && n.writes.sharesSeq(incarnation, seq) {
		n.notePath(PathSeqOfEarlierIncarnation)
		return n.writes.take(n.writes.incarnation, seq) // planted bug: the seq alone names the write
	}
	return n.writes.take(incarnation, seq)
}
