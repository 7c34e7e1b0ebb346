package node

import (
	"fmt"
	"slices"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/logstore"
	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/wire"
)

// tracer emits the node's abstract trace (package modeltrace) to the
// config's Trace sink. A nil *tracer is off: every method returns at once,
// so the call sites cost a nil check. Steps of a Ready round are staged
// and emitted only once the round's store commit made them durable (a
// refused commit discards them: the node fails and restarts from its store).
//
// Only stream shard groups are traced; the metadata group is not the
// model's.
type tracer struct {
	sink   modeltrace.Sink
	broker uint64
	// staged holds this round's steps until the store commit; it is empty
	// outside a round. Its length is bounded by the steps of one round
	// (a few per group plus one per applied entry).
	staged []modeltrace.Step
	// vote and commit are each group's last emitted (term, vote) and
	// commit mark, indexed by group id - MetaGroup.
	vote   []termVote
	commit []uint64
	// led is the term in which each group's last Ready left this broker
	// leading (0: not leading), indexed like vote.
	led []uint64
	// store is the node's store: a Persist step reports the stored log
	// as the round's commit left it (set by restart).
	store *logstore.Store
}

// termVote is a group's last persisted term and vote.
type termVote struct{ term, vote uint64 }

// newTracer returns the node's tracer, nil when sink is nil.
func newTracer(sink modeltrace.Sink, broker uint64) *tracer {
	if sink == nil {
		return nil
	}
	return &tracer{sink: sink, broker: broker}
}

func (t *tracer) stage(s modeltrace.Step) {
	s.Broker = t.broker
	t.staged = append(t.staged, s)
}

// flush emits the staged steps once the round's commit succeeded.
func (t *tracer) flush() {
	if t == nil {
		return
	}
	t.storedTails()
	for i := range t.staged {
		t.sink.Step(&t.staged[i])
	}
	t.discard()
}

// storedTails completes each group's last staged Persist with what the
// store holds past the entries raft persisted: a Persist reports the
// stored log from its index on, and a store that kept entries past them
// (a conflicting suffix not dropped) must show them. A group that
// installed a snapshot this round is left as staged.
func (t *tracer) storedTails() {
	var done []uint64 // groups whose last Persist was looked at
	for i := len(t.staged) - 1; i >= 0; i-- {
		s := &t.staged[i]
		if (s.Kind != modeltrace.Persist && s.Kind != modeltrace.Snapshot) || slices.Contains(done, s.Group) {
			continue
		}
		done = append(done, s.Group)
		if s.Kind == modeltrace.Snapshot {
			continue
		}
		st := t.store.RaftStorage(s.Group)
		end := s.Index + uint64(len(s.Entries)) - 1
		last, err := st.LastIndex()
		if err != nil || last <= end {
			continue
		}
		es, err := st.Entries(end+1, last+1, 1<<62)
		if err != nil {
			panic(fmt.Sprintf("node %d: trace: stored entries %d..%d of group %d: %v", t.broker, end+1, last, s.Group, err))
		}
		for _, e := range es {
			s.Entries = append(s.Entries, modeltrace.Entry{Term: e.GetTerm(), Digest: modeltrace.Digest(e.GetData())})
		}
	}
}

// discard drops the staged steps of a round whose commit was refused.
func (t *tracer) discard() {
	if t == nil {
		return
	}
	clear(t.staged)
	t.staged = t.staged[:0]
}

// restart emits one Restart per stream shard group: the stored log, commit
// mark, applied index and scopes the node rebuilt from its store.
func (t *tracer) restart(n *Node) {
	if t == nil {
		return
	}
	t.store = n.store
	t.vote = make([]termVote, len(n.raftGroups))
	t.commit = make([]uint64, len(n.raftGroups))
	t.led = make([]uint64, len(n.raftGroups))
	for i, g := range n.raftGroups {
		if g.id == MetaGroup {
			continue
		}
		st := n.store.RaftStorage(g.id)
		hs, _, err := st.InitialState()
		if err != nil {
			panic(fmt.Sprintf("node %d: trace: initial state of group %d: %v", t.broker, g.id, err))
		}
		first, _ := st.FirstIndex()
		last, _ := st.LastIndex()
		snapTerm, err := st.Term(first - 1)
		if err != nil {
			panic(fmt.Sprintf("node %d: trace: term of group %d's compaction point %d: %v", t.broker, g.id, first-1, err))
		}
		// The snapshot's index is committed, whatever the hard state says.
		commit := max(hs.GetCommit(), first-1)
		t.vote[i], t.commit[i] = termVote{hs.GetTerm(), hs.GetVote()}, commit
		s := modeltrace.Step{Kind: modeltrace.Restart, Group: g.id, Index: first - 1, CommitMark: commit, Applied: g.applied,
			RetainedMax: uint64(g.spec.RetainedLenMax), Finalized: g.features.AtomicCommitFinalized}
		// The stored snapshot (the bootstrap one, or the compaction point)
		// leads the log; its data is not the trace's.
		s.Entries = append(s.Entries, modeltrace.Entry{Term: snapTerm})
		if last >= first {
			es, err := st.Entries(first, last+1, 1<<62)
			if err != nil {
				panic(fmt.Sprintf("node %d: trace: stored entries of group %d: %v", t.broker, g.id, err))
			}
			for _, e := range es {
				s.Entries = append(s.Entries, modeltrace.Entry{Term: e.GetTerm(), Digest: modeltrace.Digest(e.GetData())})
			}
		}
		s.Scopes = scopesOf(g)
		s.Broker = t.broker
		t.sink.Step(&s)
	}
}

// ready stages one group's Ready: entries a follower stores, its vote, a
// promotion, the leader's own new entries, and a moved commit mark, in
// the order raft took them.
func (t *tracer) ready(g *raftGroup, rd *raft.Ready) {
	if t == nil || g.id == MetaGroup {
		return
	}
	i := g.id - MetaGroup
	hs := rd.HardState
	term := t.vote[i].term
	if !raft.IsEmptyHardState(hs) {
		term = hs.GetTerm()
	}
	// The leader's own entries of its term are at the tail; they follow
	// its promotion.
	if !raft.IsEmptySnap(rd.Snapshot) {
		md := rd.Snapshot.GetMetadata()
		t.stage(modeltrace.Step{Kind: modeltrace.Snapshot, Group: g.id, Index: md.GetIndex(), Term: md.GetTerm()})
		t.commit[i] = max(t.commit[i], md.GetIndex())
	}
	// A broker may win a term and lose it again within one round (a newer
	// term reached it before the Ready): no Ready shows it leading, but
	// its messages do, and its log holds the entries it proposed.
	roundLed, roundVoted := t.ledWithinRound(g, rd, term)
	own := roundLed // the term whose entries are its own proposals
	if g.isLeader {
		own = term
	}
	before, mine, after := splitByTerm(rd.Entries, own)
	if led := t.led[i]; led != 0 && (!g.isLeader || led != term) {
		// It led term led when the round began and proposed these entries
		// before stepping down within the round (a newer term reached it):
		// its own changes are proposals of that term, before anything of
		// the newer one.
		t.proposeConf(g, termEntries(before, led))
	}
	t.persist(g, before, t.takenTerm(rd, before, own, i, term))
	if roundLed != 0 {
		if roundVoted && t.vote[i] != (termVote{roundLed, t.broker}) {
			t.stage(modeltrace.Step{Kind: modeltrace.Vote, Group: g.id, Term: roundLed, Candidate: t.broker})
			t.vote[i] = termVote{roundLed, t.broker}
		}
		t.stage(modeltrace.Step{Kind: modeltrace.Promote, Group: g.id, Term: roundLed})
		t.proposeConf(g, mine)
		t.persist(g, mine, roundLed)
		// What it took from a newer term's leader once it lost roundLed.
		t.persist(g, after, t.takenTerm(rd, after, 0, i, term))
	}
	if !raft.IsEmptyHardState(hs) && hs.GetVote() != 0 && (hs.GetTerm() != t.vote[i].term || hs.GetVote() != t.vote[i].vote) {
		t.stage(modeltrace.Step{Kind: modeltrace.Vote, Group: g.id, Term: hs.GetTerm(), Candidate: hs.GetVote()})
	}
	if !raft.IsEmptyHardState(hs) {
		t.vote[i] = termVote{hs.GetTerm(), hs.GetVote()}
	}
	if rd.SoftState != nil && rd.SoftState.RaftState == raft.StateLeader && g.isLeader {
		t.stage(modeltrace.Step{Kind: modeltrace.Promote, Group: g.id, Term: term})
	}
	if roundLed == 0 {
		t.proposeConf(g, mine)
		t.persist(g, mine, own)
		t.persist(g, after, t.takenTerm(rd, after, 0, i, term)) // none: it leads the round's last term
	}
	t.led[i] = 0
	if g.isLeader {
		t.led[i] = term
	}
	if !raft.IsEmptyHardState(hs) && hs.GetCommit() > t.commit[i] {
		t.commit[i] = hs.GetCommit()
		t.stage(modeltrace.Step{Kind: modeltrace.Commit, Group: g.id, Index: hs.GetCommit()})
	}
}

// ledWithinRound finds a term this broker led during the round that no
// Ready shows it leading: it sent a leader's message (an append, a
// heartbeat, a snapshot or a leadership hand-over) in a term older than
// the round's final term, and was neither leading when the round began
// nor leads now. voted says it also sent its own vote request in that
// term (it voted for itself within the round). 0 when there is none.
func (t *tracer) ledWithinRound(g *raftGroup, rd *raft.Ready, finalTerm uint64) (term uint64, voted bool) {
	if g.isLeader || t.led[g.id-MetaGroup] != 0 {
		return 0, false
	}
	for _, m := range rd.Messages {
		if m.GetFrom() != t.broker || m.GetTerm() >= finalTerm {
			continue
		}
		switch m.GetType() {
		case raftpb.MsgApp, raftpb.MsgHeartbeat, raftpb.MsgSnap, raftpb.MsgTimeoutNow:
			term = max(term, m.GetTerm())
		}
	}
	if term == 0 {
		return 0, false
	}
	for _, m := range rd.Messages {
		if m.GetFrom() == t.broker && m.GetType() == raftpb.MsgVote && m.GetTerm() == term {
			voted = true
		}
	}
	return term, voted
}

// splitByTerm splits es (terms ascending) at own, the term whose entries
// are the broker's own proposals (0: none): the entries of older terms,
// of own, and of newer ones (taken from a newer term's leader after it
// lost own within the round).
func splitByTerm(es []*raftpb.Entry, own uint64) (before, mine, after []*raftpb.Entry) {
	if own == 0 {
		return es, nil, nil
	}
	lo := len(es)
	for lo > 0 && es[lo-1].GetTerm() >= own {
		lo--
	}
	hi := lo
	for hi < len(es) && es[hi].GetTerm() == own {
		hi++
	}
	return es[:lo], es[lo:hi], es[hi:]
}

// takenTerm is the term in which the broker took es: the term of its
// answers accepting a leader's append that cover es (older than below,
// when below is not 0); else the term it led when the round began (es
// are its own proposals of that term); else the round's term.
func (t *tracer) takenTerm(rd *raft.Ready, es []*raftpb.Entry, below uint64, i, term uint64) uint64 {
	if at, ok := appendTerm(rd, t.broker, es, below); ok {
		return at
	}
	if t.led[i] != 0 {
		return t.led[i]
	}
	return term
}

// appendTerm is the term in which broker took es (stored as a follower):
// that of its last answer accepting a leader's append (MsgAppResp, not a
// rejection) that covers es, sent in the same Ready, older than below
// when below is not 0; ok is false when it sent none (es are its own, or
// empty).
func appendTerm(rd *raft.Ready, broker uint64, es []*raftpb.Entry, below uint64) (term uint64, ok bool) {
	if len(es) == 0 {
		return 0, false
	}
	for _, m := range rd.Messages {
		if m.GetType() != raftpb.MsgAppResp || m.GetFrom() != broker || m.GetTo() == broker || m.GetReject() || m.GetIndex() < es[0].GetIndex() {
			continue
		}
		if below == 0 || m.GetTerm() < below {
			term, ok = max(term, m.GetTerm()), true
		}
	}
	return term, ok
}

// termEntries are the entries of es in term.
func termEntries(es []*raftpb.Entry, term uint64) []*raftpb.Entry {
	var out []*raftpb.Entry
	for _, e := range es {
		if e.GetTerm() == term {
			out = append(out, e)
		}
	}
	return out
}

// proposeConf stages a ProposeConf for each membership change among the
// leader's own new entries es, before their Persist.
func (t *tracer) proposeConf(g *raftGroup, es []*raftpb.Entry) {
	for _, e := range es {
		if e.GetType() == raftpb.EntryType_EntryNormal {
			continue
		}
		s := modeltrace.Step{Kind: modeltrace.ProposeConf, Group: g.id, Term: e.GetTerm(), Digest: modeltrace.Digest(e.GetData())}
		if cc, err := decodeConfChange(e); err == nil {
			s.Change = changeOf(cc.AsV2())
		}
		t.stage(s)
	}
}

// changeOf describes a simple one-change ConfChangeV2 as the model's
// change; nil for any other (a joint change, or none).
func changeOf(cc *raftpb.ConfChangeV2) *modeltrace.ConfChange {
	chs := cc.GetChanges()
	if len(chs) != 1 || cc.GetTransition() != raftpb.ConfChangeTransition_ConfChangeTransitionAuto {
		return nil
	}
	c := &modeltrace.ConfChange{Node: chs[0].GetNodeId()}
	switch chs[0].GetType() {
	case raftpb.ConfChangeType_ConfChangeAddNode:
		c.Type = modeltrace.AddVoter
	case raftpb.ConfChangeType_ConfChangeAddLearnerNode:
		c.Type = modeltrace.AddLearner
	case raftpb.ConfChangeType_ConfChangeRemoveNode:
		c.Type = modeltrace.Remove
	default:
		return nil
	}
	return c
}

// applyConf stages the apply of membership change e: g's configuration
// after it.
func (t *tracer) applyConf(g *raftGroup, e *raftpb.Entry) {
	if t == nil || g.id == MetaGroup {
		return
	}
	t.stage(modeltrace.Step{Kind: modeltrace.ApplyConf, Group: g.id, Index: e.GetIndex(), Term: e.GetTerm(), Digest: modeltrace.Digest(e.GetData()),
		Voters: slices.Clone(g.confState.GetVoters()), Learners: slices.Clone(g.confState.GetLearners())})
}

// persist stages the storing of es, taken in term.
func (t *tracer) persist(g *raftGroup, es []*raftpb.Entry, term uint64) {
	if len(es) == 0 {
		return
	}
	s := modeltrace.Step{Kind: modeltrace.Persist, Group: g.id, Term: term, Index: es[0].GetIndex(), Entries: make([]modeltrace.Entry, len(es))}
	for j, e := range es {
		s.Entries[j] = modeltrace.Entry{Term: e.GetTerm(), Digest: modeltrace.Digest(e.GetData())}
	}
	t.stage(s)
}

// apply stages the apply of entry e, a command of tenant's scope ("" for
// none); body is the answer applying it gave (nil for an empty or
// undecodable entry).
func (t *tracer) apply(g *raftGroup, e *raftpb.Entry, body wire.AnswerBody, tenant string) {
	if t == nil || g.id == MetaGroup {
		return
	}
	s := modeltrace.Step{Kind: modeltrace.Apply, Group: g.id, Index: e.GetIndex(), Term: e.GetTerm(), Digest: modeltrace.Digest(e.GetData()),
		First: firstOffsetOf(g, tenant)}
	s.Outcome, s.Offset = outcomeOf(body)
	if b, ok := body.(*wire.Error); ok {
		s.Error = b.Code.String()
	}
	t.stage(s)
}

// request emits a client's commit turned into a proposal with data (an
// operator's request, req nil, is not the model's).
func (t *tracer) request(g *raftGroup, client uint64, req *wire.Request, c *command, data []byte) {
	if t == nil || g.id == MetaGroup || req == nil {
		return
	}
	s := modeltrace.Step{Kind: modeltrace.Request, Broker: t.broker, Group: g.id, Term: g.rn.BasicStatus().HardState.GetTerm(),
		Digest: modeltrace.Digest(data), Client: client, ReqID: req.ID}
	switch req.Body.(type) {
	case *wire.GroupFetch:
		s.Asked = &modeltrace.Write{Tenant: req.Scope.Tenant, Kind: modeltrace.KindFetch}
	case *wire.GroupAck:
		s.Asked = &modeltrace.Write{Tenant: req.Scope.Tenant, Kind: modeltrace.KindAck}
	case *wire.OutboxTrim:
		s.Asked = &modeltrace.Write{Tenant: req.Scope.Tenant, Kind: modeltrace.KindOutboxTrim}
	default:
		s.Asked = commitOf(req.Scope.Tenant, wire.RecordOf(req.Body))
	}
	switch c.kind {
	case cmdFetch:
		s.Proposed = &modeltrace.Write{Tenant: c.scope.Tenant, Kind: modeltrace.KindFetch}
	case cmdAck:
		s.Proposed = &modeltrace.Write{Tenant: c.scope.Tenant, Kind: modeltrace.KindAck}
	case cmdOutboxTrim:
		s.Proposed = &modeltrace.Write{Tenant: c.scope.Tenant, Kind: modeltrace.KindOutboxTrim}
	default:
		s.Proposed = commitOf(c.scope.Tenant, &c.record)
	}
	t.sink.Step(&s)
}

// operator emits a broker's own proposal (no client asked for it) as a
// request for no client: the model lets a broker propose it like a client
// write that writes no record, and applies what it names (a retention
// step, a feature's or an incarnation's marker). Only the broker's
// legitimate commands come here (proposeInternal); the planted defects'
// silent proposals do not.
func (t *tracer) operator(g *raftGroup, c *command, data []byte) {
	if t == nil || g.id == MetaGroup {
		return
	}
	w := &modeltrace.Write{Tenant: c.scope.Tenant}
	switch c.kind {
	case cmdRetain:
		w.Kind, w.Retain = modeltrace.KindRetain, c.offset
	case cmdFeature:
		w.Kind, w.Feature = modeltrace.KindFeature, c.feature
	case cmdIncarnation:
		w.Kind, w.Generation, w.Deleted = modeltrace.KindIncarnation, c.generation, c.deleted
	default:
		panic(fmt.Sprintf("node %d: trace: group %d: own %s command is not the model's", t.broker, g.id, c.kind))
	}
	t.sink.Step(&modeltrace.Step{Kind: modeltrace.Request, Broker: t.broker, Group: g.id, Term: g.rn.BasicStatus().HardState.GetTerm(),
		Digest: modeltrace.Digest(data), Asked: w, Proposed: w})
}

// answer emits an answer to a client's write (other answers are not the
// model's).
func (t *tracer) answer(client, reqID uint64, body wire.AnswerBody) {
	if t == nil {
		return
	}
	o, off := outcomeOf(body)
	if o != modeltrace.OutcomeWritten && o != modeltrace.OutcomeRefused {
		return
	}
	t.sink.Step(&modeltrace.Step{Kind: modeltrace.Answer, Broker: t.broker, Client: client, ReqID: reqID, Outcome: o, Offset: off})
}

// outcomeOf reads a write's answer as the model's outcome.
func outcomeOf(body wire.AnswerBody) (modeltrace.Outcome, uint64) {
	switch b := body.(type) {
	case *wire.Written:
		return modeltrace.OutcomeWritten, b.Offset
	case *wire.Refused:
		return modeltrace.OutcomeRefused, b.Tail
	case *wire.Error:
		return modeltrace.OutcomeError, 0
	}
	return modeltrace.OutcomeNone, 0
}

// commitOf describes a record as the model's commit table holds it.
func commitOf(tenant string, r *felix.Record) *modeltrace.Write {
	if r == nil {
		return nil
	}
	c := &modeltrace.Write{Tenant: tenant, Conditional: r.Conditional, Expected: r.ExpectedOffset, Ops: len(r.Ops), Digest: recordDigest(r)}
	for _, op := range r.Ops {
		c.StateOps = append(c.StateOps, modeltrace.StateOp{Key: op.Key, Delete: op.Kind == felix.OpDelete, Value: modeltrace.Digest(op.Value)})
	}
	switch {
	case r.Conditional && len(r.Ops) > 0:
		c.Kind = modeltrace.KindCommitIf
	case r.Conditional:
		c.Kind = modeltrace.KindPublishIf
	case len(r.Ops) > 0:
		c.Kind = modeltrace.KindCommit
	case r.Event == felix.EventEnqueue:
		c.Kind = modeltrace.KindEnqueue
	default:
		c.Kind = modeltrace.KindPublish
	}
	return c
}

// recordDigest names a record in the trace: its event, payload and state
// operations (a write's Digest, and a subscriber read's records).
func recordDigest(r *felix.Record) uint64 {
	h := modeltrace.NewHasher()
	h.Uint(uint64(r.Event))
	h.Bytes(r.Payload)
	for _, op := range r.Ops {
		h.Uint(uint64(op.Kind))
		h.String(op.Key)
		h.Bytes(op.Value)
	}
	return h.Sum()
}

// readStart emits the start of a linearizable state_get of client's
// request reqID: the broker asks raft for a read index. Ephemeral
// streams' reads are not the model's.
func (t *tracer) readStart(g *raftGroup, client, reqID uint64, tenant, key string) {
	if t == nil || g.id == MetaGroup || g.isEphemeral() {
		return
	}
	t.sink.Step(&modeltrace.Step{Kind: modeltrace.ReadStart, Broker: t.broker, Group: g.id, Client: client, ReqID: reqID, Tenant: tenant, Key: key})
}

// stateRead emits a state_get g served from its applied state (the
// model's StateGet) for client's request reqID: what it answered, at which
// applied index, once that reached readIndex. Ephemeral streams' reads
// are not the model's.
func (t *tracer) stateRead(g *raftGroup, client, reqID uint64, tenant, key string, readIndex uint64, v *wire.StateValue) {
	if t == nil || g.id == MetaGroup || g.isEphemeral() {
		return
	}
	s := modeltrace.Step{Kind: modeltrace.StateRead, Broker: t.broker, Group: g.id, Client: client, ReqID: reqID, Tenant: tenant, Key: key,
		Applied: g.applied, ReadIndex: readIndex, First: firstOffsetOf(g, tenant)}
	if v.Found {
		s.Found, s.Digest, s.Offset = true, modeltrace.Digest(v.Value), v.Version
	}
	t.sink.Step(&s)
}

// subscriberRead emits the records a subscriber read from g's applied
// state (the model's SubscriberSees); an empty read or a refused one
// shows no record and is not emitted.
func (t *tracer) subscriberRead(g *raftGroup, tenant string, body wire.AnswerBody) {
	es, ok := body.(*wire.Entries)
	if t == nil || g.id == MetaGroup || g.isEphemeral() || !ok || len(es.Entries) == 0 {
		return
	}
	s := modeltrace.Step{Kind: modeltrace.SubscriberRead, Broker: t.broker, Group: g.id, Tenant: tenant, Applied: g.applied,
		First: firstOffsetOf(g, tenant), Offset: es.Entries[0].Offset, Records: make([]uint64, len(es.Entries))}
	for j := range es.Entries {
		if es.Entries[j].Offset != s.Offset+uint64(j) {
			panic(fmt.Sprintf("node %d: trace: group %d scope %s read offset %d as entry %d from %d", t.broker, g.id, tenant, es.Entries[j].Offset, j, s.Offset))
		}
		s.Records[j] = recordDigest(&es.Entries[j].Record)
	}
	t.sink.Step(&s)
}

// firstOffsetOf is tenant's first retained offset in g (0 for a scope
// never written).
func firstOffsetOf(g *raftGroup, tenant string) uint64 {
	if s := g.lookup(tenant); s != nil {
		return s.FirstOffset()
	}
	return 0
}

// installed completes the staged Snapshot step of g with the scopes the
// install left.
func (t *tracer) installed(g *raftGroup) {
	if t == nil || g.id == MetaGroup {
		return
	}
	for i := len(t.staged) - 1; i >= 0; i-- {
		if s := &t.staged[i]; s.Kind == modeltrace.Snapshot && s.Group == g.id {
			s.Scopes = scopesOf(g)
			return
		}
	}
	panic(fmt.Sprintf("node %d: trace: group %d installed a snapshot its Ready did not stage", t.broker, g.id))
}

// scopesOf lists g's scopes' next offsets, sorted by tenant.
func scopesOf(g *raftGroup) []modeltrace.ScopeNext {
	var out []modeltrace.ScopeNext
	for _, tn := range g.tenants {
		out = append(out, modeltrace.ScopeNext{Tenant: tn, Next: g.scopes[tn].NextOffset(), First: g.scopes[tn].FirstOffset()})
	}
	return out
}
