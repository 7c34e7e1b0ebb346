package node

import (
	"errors"
	"fmt"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/logstore"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/wire"
)

// reply is an answer held until the store made what it reports durable.
type reply struct {
	client uint64
	reqID  uint64
	body   wire.AnswerBody
}

// applyCommitted applies a group's committed entries to memory and adds
// their rows to the batch: for every record written, its log, state and
// outbox rows; for every scope touched, its position; for every consumer
// group touched, its state; and the group's applied index, on the group's
// raft write. Replies to this node's clients are appended to replies.
func (n *Node) applyCommitted(b *logstore.Batch, gr *groupReady, replies []reply) []reply {
	g := gr.g
	if len(gr.rd.CommittedEntries) == 0 {
		return replies
	}
	touched := n.touchedBuf[:0]
	defer func() { n.touchedBuf = touched[:0] }()
	durable := g.applied
	var groupsTouched []groupTouch
	for _, e := range gr.rd.CommittedEntries {
		if e.GetIndex() != g.applied+1 {
			panic(fmt.Sprintf("node %d: group %d applies index %d after %d", n.cfg.ID, g.id, e.GetIndex(), g.applied))
		}
		replies = n.applyEntry(b, g, e, &touched, &groupsTouched, replies)
		g.applied = e.GetIndex()
	}
	if g.id == MetaGroup {
		return replies // the metadata group re-applies from its snapshot at every boot
	}
	n.addGroupRows(b, g, groupsTouched)
	for _, t := range g.tenants {
		if touched.has(t) {
			s := g.scopes[t]
			b.Positions = append(b.Positions, logstore.PositionRow{Scope: g.scopeOf(t), Position: logstore.Position{AppliedIndex: g.applied, NextOffset: s.NextOffset(), FirstOffset: s.FirstOffset()}})
		}
	}
	groupWrite(b, g.id).AppliedIndex = g.applied
	n.maybeCompact(b, g, durable)
	return replies
}

// groupWrite returns group id's raft write in b, adding an empty one if the
// round persisted nothing else for it.
func groupWrite(b *logstore.Batch, id uint64) *logstore.GroupWrite {
	for i := range b.Groups {
		if b.Groups[i].Group == id {
			return &b.Groups[i]
		}
	}
	b.Groups = append(b.Groups, logstore.GroupWrite{Group: id})
	return &b.Groups[len(b.Groups)-1]
}

// tenantSet is the tenants one group's apply touched, in first-touch order:
// a slice, since a round touches few (at most ScopesPerRaftGroupMax).
type tenantSet []string

func (s *tenantSet) add(t string) {
	if !s.has(t) {
		*s = append(*s, t)
	}
}

func (s tenantSet) has(t string) bool {
	for _, u := range s {
		if u == t {
			return true
		}
	}
	return false
}

// applyEntry applies one committed entry.
func (n *Node) applyEntry(b *logstore.Batch, g *raftGroup, e *raftpb.Entry, touched *tenantSet, groupsTouched *[]groupTouch, replies []reply) []reply {
	if e.GetType() != raftpb.EntryType_EntryNormal {
		n.applyConfChange(g, e)
		n.trace.applyConf(g, e)
		return replies
	}
	if len(e.GetData()) == 0 {
		n.trace.apply(g, e, nil, "")
		return replies // a new leader's empty entry
	}
	c, err := decodeCommandSharing(e.GetData(), knownNamesOf(g))
	if err != nil {
		// Every replica skips the same entry, so they stay equal.
		n.logger.Errorf("group %d index %d: skipped an undecodable entry: %v", g.id, e.GetIndex(), err)
		n.trace.apply(g, e, nil, "")
		return replies
	}
	body := n.applyCommand(b, g, &c, touched)
	n.trace.apply(g, e, body, c.scope.Tenant)
	if c.kind == cmdFetch || c.kind == cmdAck && !n.ackNotPersisted() {
		*groupsTouched = append(*groupsTouched, groupTouch{tenant: c.scope.Tenant, name: c.group})
	}
	if c.proposer != n.cfg.ID {
		return replies
	}
	pw := n.takePending(c.incarnation, c.seq)
	if pw == nil {
		if n.writes.sharesSeq(c.incarnation, c.seq) {
			n.notePath(PathSeqOfEarlierIncarnation)
		}
		return replies
	}
	return append(replies, reply{client: pw.client, reqID: pw.reqID, body: body})
}

// applyCommand applies a decoded command and returns the answer for its
// proposer's client.
func (n *Node) applyCommand(b *logstore.Batch, g *raftGroup, c *command, touched *tenantSet) wire.AnswerBody {
	if g.id == MetaGroup {
		return n.applyMeta(c)
	}
	if c.kind == cmdFeature {
		n.applyFeature(g, c)
		return &wire.Acked{}
	}
	if c.kind == cmdIncarnation {
		n.applyIncarnation(b, g, c, touched)
		return &wire.Acked{}
	}
	if refusal := deletedRefusal(g, c.kind.String()); refusal != nil && c.kind != cmdRetain && !n.appliesDeleted(c) {
		return refusal
	}
	if refusal := staleWriteRefusal(g, c); refusal != nil && !n.appliesDeleted(c) {
		return refusal
	}
	if c.kind == cmdOutboxTrim {
		if s := g.lookup(c.scope.Tenant); s != nil {
			return n.applyOutboxTrim(b, g, s, c)
		}
		return &wire.Acked{} // a scope never written has no outbox
	}
	if c.kind != cmdWrite && c.kind != cmdFetch && c.kind != cmdAck && c.kind != cmdRetain {
		return &wire.Error{Code: wire.CodeInvalidRequest, Message: fmt.Sprintf("stream shard group %d refused a %s command", g.id, c.kind)}
	}
	var s *statemachine.Shard
	var err error
	if c.kind == cmdWrite || c.kind == cmdFetch {
		s, err = g.open(c.scope.Tenant)
	} else if s = g.lookup(c.scope.Tenant); s == nil {
		err = fmt.Errorf("%w: %s in scope %s, which holds nothing", statemachine.ErrInvalidCommand, c.kind, c.scope)
		if c.kind == cmdAck {
			err = fmt.Errorf("%w: ack for group %q in scope %s, which has no groups", statemachine.ErrUnknownGroup, c.group, c.scope)
		}
	}
	if err != nil {
		return errorAnswer(err)
	}
	touched.add(c.scope.Tenant)
	switch c.kind {
	case cmdWrite:
		return n.applyWrite(b, g, s, c)
	case cmdRetain:
		first := s.FirstOffset()
		if err := n.applyRetain(s, c); err != nil {
			return errorAnswer(err)
		}
		if s.FirstOffset() > first {
			n.retainDropsOutbox(b, g, c.scope.Tenant, s)
			n.observeDropped(c.scope, s.NextOffset(), s.FirstOffset(), false)
		}
		return &wire.Acked{}
	case cmdFetch:
		ds, err := s.Fetch(statemachine.GroupFetch{Group: c.group, NowNs: n.fetchNowNs(c), LeaseNs: n.stateLeaseNs(c), EntriesMax: int(c.entriesMax)})
		if err != nil {
			return errorAnswer(err)
		}
		out := &wire.Deliveries{LeaseExpiryNs: uint64(n.fetchNowNs(c) + c.leaseNs)}
		for _, d := range ds {
			out.Entries = append(out.Entries, d.Entry)
		}
		return out
	default:
		if err := n.ack(s, statemachine.GroupAck{Group: c.group, Offset: c.offset}); err != nil {
			return errorAnswer(err)
		}
		return &wire.Acked{}
	}
}

// applyWrite applies a record and, when written, adds its log, state and
// outbox rows: the event and its state changes reach memory and the batch
// in one step.
func (n *Node) applyWrite(b *logstore.Batch, g *raftGroup, s *statemachine.Shard, c *command) wire.AnswerBody {
	rec := c.record
	if rec.IsCommit() && g.features.AtomicCommitFinalized && n.partialCommit() {
		rec.Ops = nil // planted bug: an old version drops what it does not know
	}
	first := s.FirstOffset()
	res, err := n.applyRecord(s, &rec, g.features)
	if err != nil {
		return errorAnswer(err)
	}
	switch res.Outcome {
	case statemachine.OutcomeWritten:
		n.holdStateBack(s, rec.Ops, res.Offset)
		n.observeApplied(c.scope, res.Offset, &rec, s)
		if s.FirstOffset() > first {
			n.observeDropped(c.scope, res.Offset+1, s.FirstOffset(), true)
		}
		b.AddRecord(c.scope, res.Offset, rec, nil)
		b.Outbox = append(b.Outbox, logstore.OutboxRow{Kind: logstore.WritePut, Scope: n.outboxKey(c.scope), Offset: res.Offset, Intent: *outboxIntent(&rec)})
		return &wire.Written{Offset: res.Offset}
	case statemachine.OutcomeRefused:
		return &wire.Refused{Tail: res.Tail}
	}
	panic(fmt.Sprintf("node %d: group %d: apply returned %v", n.cfg.ID, g.id, res))
}

// applyMeta applies a metadata command; a broker too old for a feature
// the group finalizes fail-stops (a restart then refuses to start it).
func (n *Node) applyMeta(c *command) wire.AnswerBody {
	if err := n.meta.apply(c, members(n.raftGroups[0].confState), n.versionsUnchecked()); err != nil {
		return &wire.Error{Code: wire.CodeAdminRefused, Message: truncate(err.Error())}
	}
	n.incarnationsDue = n.incarnationsDue || c.kind == cmdStreamAdmin
	if c.kind == cmdFinalize {
		if err := n.checkVersions(n.meta.Finalized); err != nil {
			n.fail(err)
		}
	}
	return &wire.Acked{}
}

// errorAnswer maps a statemachine refusal to a wire error.
func errorAnswer(err error) *wire.Error {
	code := wire.CodeInvalidRequest
	var oe *statemachine.OffsetError
	switch {
	case errors.Is(err, statemachine.ErrEphemeralRefusesCommit):
		code = wire.CodeEphemeralStream
	case errors.Is(err, statemachine.ErrFeatureNotFinalized):
		code = wire.CodeFeatureNotFinalized
	case errors.Is(err, statemachine.ErrWindowHeld):
		code = wire.CodeUnavailable // nothing written; the group's acks will make room
	case errors.As(err, &oe) && (errors.Is(err, statemachine.ErrBeforeWindow) || errors.Is(err, statemachine.ErrDropped)):
		return &wire.Error{Code: wire.CodeBeforeWindow, Message: truncate(err.Error()), WindowStart: oe.StartOffset}
	}
	return &wire.Error{Code: code, Message: truncate(err.Error())}
}

// truncate keeps an error message within wire.MessageLenMax.
func truncate(s string) string {
	if len(s) > wire.MessageLenMax {
		return s[:wire.MessageLenMax]
	}
	return s
}
