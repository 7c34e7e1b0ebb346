package node

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/wire"
)

// HandleRequest serves one client request from endpoint client. Writes and
// consumer-group commands are proposed to the shard's raft group and
// answered when this node applies their entry; state reads wait for a
// ReadIndex; subscriber reads are served from the applied log. Only the
// shard's leader serves: others answer NotLeader with their leader hint.
func (n *Node) HandleRequest(client uint64, req *wire.Request) {
	if n.failed != nil {
		return // a failed node is down: it answers nothing
	}
	g, errBody := n.route(req)
	if errBody != nil {
		n.answer(client, req.ID, errBody)
		return
	}
	if sg, ok := req.Body.(*wire.StateGet); ok && n.cfg.Defects.StateReadWithoutReadIndex {
		v := n.stateValue(g, req.Scope.Tenant, sg.Key) // planted bug
		n.trace.readStart(g, client, req.ID, req.Scope.Tenant, sg.Key)
		n.trace.stateRead(g, client, req.ID, req.Scope.Tenant, sg.Key, g.applied, v) // its read index: what it applied

		n.answer(client, req.ID, v)
		return
	}
	if !g.isLeader {
		n.answer(client, req.ID, &wire.Error{Code: wire.CodeNotLeader, Message: fmt.Sprintf("node %d does not lead group %d", n.cfg.ID, g.id), LeaderHint: g.lead})
		return
	}
	if refusal := deletedRefusal(g, kindName(req.Body)); refusal != nil {
		n.answer(client, req.ID, refusal)
		return
	}
	if g.isEphemeral() {
		n.answer(client, req.ID, n.serveEphemeral(client, req, g))
		return
	}
	switch body := req.Body.(type) {
	case *wire.StateGet:
		n.startRead(client, req, g, body)
	case *wire.SubscribeRead:
		a := n.subscribeRead(g, req.Scope.Tenant, body)
		n.trace.subscriberRead(g, req.Scope.Tenant, a)
		n.answer(client, req.ID, a)
	case *wire.GroupFetch:
		n.propose(client, req.ID, g, &command{kind: cmdFetch, scope: req.Scope, group: body.Group,
			nowNs: n.host.NowNs(), leaseNs: int64(body.LeaseNs), entriesMax: body.MaxEntries}, req)
	case *wire.GroupAck:
		n.propose(client, req.ID, g, &command{kind: cmdAck, scope: req.Scope, group: body.Group, offset: body.Offset}, req)
	case *wire.OutboxRead:
		n.answer(client, req.ID, n.outboxRead(g, req.Scope.Tenant, body))
	case *wire.OutboxTrim:
		n.propose(client, req.ID, g, &command{kind: cmdOutboxTrim, scope: req.Scope, offset: body.ThroughOffset}, req)
	default:
		if refusal := n.refuseWrite(g, req.Body); refusal != nil {
			n.answer(client, req.ID, refusal)
			break
		}
		n.proposeWrite(client, req, g, *wire.RecordOf(req.Body))
	}
	n.maybeProcess()
}

// route finds the request's raft group and checks the request's shape; it
// returns an error answer instead when the request cannot be served.
func (n *Node) route(req *wire.Request) (*raftGroup, wire.AnswerBody) {
	invalid := func(format string, args ...any) wire.AnswerBody {
		return &wire.Error{Code: wire.CodeInvalidRequest, Message: truncate(fmt.Sprintf(format, args...))}
	}
	if err := req.Scope.Validate(); err != nil {
		return nil, invalid("%v", err)
	}
	id := n.topo.raftGroupOf(req.Scope.Namespace, req.Scope.Stream, req.Scope.Shard)
	if id == 0 {
		return nil, &wire.Error{Code: wire.CodeUnknownStream, Message: truncate(fmt.Sprintf("no stream shard %s", req.Scope))}
	}
	if msg := checkBody(req.Body); msg != "" {
		return nil, invalid("%s request refused: %s", kindName(req.Body), msg)
	}
	return n.raftGroup(id), nil
}

func kindName(b wire.RequestBody) string {
	if b == nil {
		return "empty"
	}
	return b.Kind().String()
}

// checkBody refuses a request whose record does not match its kind or
// whose read parameters are out of range; "" means acceptable.
func checkBody(body wire.RequestBody) string {
	switch b := body.(type) {
	case nil:
		return "no body"
	case *wire.StateGet:
		if b.Key == "" || len(b.Key) > felix.KeyLenMax {
			return fmt.Sprintf("key of %d bytes, want 1..%d", len(b.Key), felix.KeyLenMax)
		}
		return ""
	case *wire.SubscribeRead:
		if b.MaxEntries < 1 || b.MaxEntries > wire.ReadEntriesMax {
			return fmt.Sprintf("max entries %d, want 1..%d", b.MaxEntries, wire.ReadEntriesMax)
		}
		return ""
	case *wire.GroupFetch:
		if b.MaxEntries < 1 || b.MaxEntries > wire.ReadEntriesMax || b.LeaseNs < 1 || b.LeaseNs > 1<<50 {
			return fmt.Sprintf("max entries %d, lease %d ns: want 1..%d entries and a lease of 1..2^50 ns", b.MaxEntries, b.LeaseNs, wire.ReadEntriesMax)
		}
		return ""
	case *wire.GroupAck, *wire.OutboxTrim:
		return ""
	case *wire.OutboxRead:
		if b.MaxEntries < 1 || b.MaxEntries > wire.ReadEntriesMax {
			return fmt.Sprintf("max entries %d, want 1..%d", b.MaxEntries, wire.ReadEntriesMax)
		}
		return ""
	}
	rec := wire.RecordOf(body)
	if rec == nil {
		return fmt.Sprintf("unknown body %T", body)
	}
	if err := rec.Validate(); err != nil {
		return err.Error()
	}
	wantEvent, conditional, opsAllowed := felix.EventPublish, false, false
	switch body.(type) {
	case *wire.PublishIf:
		conditional = true
	case *wire.Enqueue:
		wantEvent = felix.EventEnqueue
	case *wire.Commit:
		wantEvent, opsAllowed = rec.Event, true
	case *wire.CommitIf:
		wantEvent, opsAllowed, conditional = rec.Event, true, true
	}
	switch {
	case rec.Event != wantEvent:
		return fmt.Sprintf("record carries a %s event", rec.Event)
	case rec.Conditional != conditional:
		return fmt.Sprintf("record conditional flag is %v", rec.Conditional)
	case !opsAllowed && len(rec.Ops) > 0:
		return fmt.Sprintf("record carries %d state operations; only commits may", len(rec.Ops))
	case !conditional && rec.ExpectedOffset != 0:
		return fmt.Sprintf("unconditional record carries expected offset %d", rec.ExpectedOffset)
	}
	return ""
}

// refuseWrite refuses, before anything is proposed, a commit or commit_if
// on a shard group that has not applied the atomic_commit marker: even one
// without state operations, which the apply-time gate would let through
// as a plain event. Apply still gates every commit record on its own.
func (n *Node) refuseWrite(g *raftGroup, body wire.RequestBody) wire.AnswerBody {
	switch body.(type) {
	case *wire.Commit, *wire.CommitIf:
	default:
		return nil
	}
	if !g.features.AtomicCommitFinalized {
		return errorAnswer(fmt.Errorf("%w: group %d (%s/%s shard %d) has not applied it; an operator finalizes it once every broker runs version %d or newer",
			statemachine.ErrFeatureNotFinalized, g.id, g.spec.Namespace, g.spec.Stream, g.shard, AtomicCommitVersionMin))
	}
	return nil
}

// proposeWrite proposes a record write (with the planted defects that
// change how, when they are on).
func (n *Node) proposeWrite(client uint64, req *wire.Request, g *raftGroup, rec felix.Record) {
	d := &n.cfg.Defects
	if d.CommitIfCheckedAtProposal && rec.Conditional {
		tail := uint64(0)
		if s := g.lookup(req.Scope.Tenant); s != nil {
			tail = s.NextOffset()
		}
		if rec.ExpectedOffset != tail {
			n.answer(client, req.ID, &wire.Refused{Tail: tail})
			return
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
		return
	}
	if d.WritesWaitForLearner && n.learnerLagging(g) {
		n.answer(client, req.ID, &wire.Error{Code: wire.CodeUnavailable, Message: fmt.Sprintf("group %d holds writes while a learner catches up", g.id)})
		return
	}
	n.propose(client, req.ID, g, &command{kind: cmdWrite, scope: req.Scope, record: rec}, req)
}

// proposeSilently proposes c with no client to answer (planted defects only).
func (n *Node) proposeSilently(g *raftGroup, c *command) {
	n.seq++
	c.proposer, c.incarnation, c.seq = n.cfg.ID, n.writes.incarnation, n.seq
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

// propose proposes c for the client's request reqID, or answers
// Unavailable if the pending table is full or raft drops the proposal
// (nothing was proposed). req is the client's request as sent, for the
// abstract trace (nil for an operator's request).
func (n *Node) propose(client, reqID uint64, g *raftGroup, c *command, req *wire.Request) {
	if n.writes.len() >= n.cfg.PendingWritesMax {
		n.answer(client, reqID, &wire.Error{Code: wire.CodeUnavailable, Message: fmt.Sprintf("node %d has %d writes pending, the cap", n.cfg.ID, n.writes.len())})
		return
	}
	n.seq++
	c.proposer, c.incarnation, c.seq = n.cfg.ID, n.writes.incarnation, n.seq
	data, err := encodeCommand(c)
	if err != nil {
		n.answer(client, reqID, &wire.Error{Code: wire.CodeInvalidRequest, Message: truncate(err.Error())})
		return
	}
	if err := n.raftPropose(g, data); err != nil {
		n.answer(client, reqID, &wire.Error{Code: wire.CodeUnavailable, Message: truncate(fmt.Sprintf("group %d dropped the proposal: %v", g.id, err))})
		return
	}
	n.trace.request(g, client, req, c, data)
	w := &pendingWrite{seq: n.seq, client: client, reqID: reqID, group: g.id, arrivedTick: n.ticks, write: c.kind == cmdWrite}
	if n.cfg.Defects.ReproposePending && c.kind == cmdWrite {
		w.again = &reproposal{data: data}
	}
	n.writes.add(w)
}

// subscribeRead serves committed, applied entries from the tenant's shard.
func (n *Node) subscribeRead(g *raftGroup, tenant string, b *wire.SubscribeRead) wire.AnswerBody {
	s := g.lookup(tenant)
	if s == nil {
		if b.FromOffset == 0 {
			return &wire.Entries{}
		}
		return &wire.Error{Code: wire.CodeInvalidRequest, Message: fmt.Sprintf("read from offset %d of an empty shard", b.FromOffset)}
	}
	es, err := s.ReadFrom(b.FromOffset, int(b.MaxEntries))
	if err != nil {
		return errorAnswer(err)
	}
	return &wire.Entries{Entries: es}
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
