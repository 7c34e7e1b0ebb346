package tla

import "math/bits"

// Action kinds; an action is a kind and one or two brokers.
const (
	actInit uint8 = iota
	actTimeout
	actVote
	actPromote
	actPropose
	actReplicate
	actAdvanceCommit
	actApply
	actApplyState
	actCrash
	actPersist
	actReconfigure
	actApplyConf
	actCrashKeep
)

var actionNames = [...]string{"Init", "Timeout", "Vote", "Promote", "Propose", "Replicate", "AdvanceCommit", "Apply", "ApplyState", "Crash", "Persist", "Reconfigure", "ApplyConf", "CrashKeep"}

// action packs an action kind and its brokers' indexes: b, and q for the
// two-broker actions Vote(q, b) and Replicate(b, q).
type action uint16

func mkAction(kind uint8, b int) action { return action(uint16(kind)<<8 | uint16(b)) }

func mkAction2(kind uint8, b, q int) action {
	return action(uint16(kind)<<8 | uint16(q)<<4 | uint16(b))
}

// String renders the action as the TLA+ spec names it, e.g. Apply(b2),
// Vote(b1, b3) (b1 votes for b3) or Replicate(b3, b1) (leader b3 to b1).
func (a action) String() string {
	kind, b, q := uint8(a>>8), int(a&15), int(a>>4&15)
	switch kind {
	case actInit:
		return actionNames[kind]
	case actVote:
		return actionNames[kind] + "(" + brokerNames[q] + ", " + brokerNames[b] + ")"
	case actReplicate:
		return actionNames[kind] + "(" + brokerNames[b] + ", " + brokerNames[q] + ")"
	}
	return actionNames[kind] + "(" + brokerNames[b] + ")"
}

// model generates a config's successor states; it holds no state of its own.
type model struct {
	cfg Config
}

// initState is the model's one initial state: every broker but the
// spares votes, the spares are in no configuration.
func (m *model) initState() State {
	s := State{nextCid: 1}
	for b := 0; b < m.cfg.Brokers-m.cfg.Spares; b++ {
		s.b[b].voters = m.initVoters()
	}
	return s
}

// initVoters is the initial configuration's voters: every broker but the
// spares (the last cfg.Spares).
func (m *model) initVoters() uint8 { return uint8(1)<<(m.cfg.Brokers-m.cfg.Spares) - 1 }

// quorumIn reports whether the brokers in set are a majority of voters.
func quorumIn(set, voters uint8) bool { return 2*bits.OnesCount8(set&voters) > bits.OnesCount8(voters) }

// successors calls emit for every successor of s, one per enabled action
// instance, in a fixed order (the same multiset TLC generates).
func (m *model) successors(s *State, emit func(a action, t *State)) {
	n := m.cfg.Brokers
	var t State
	for b := 0; b < n; b++ {
		if m.timeout(s, b, &t) {
			emit(mkAction(actTimeout, b), &t)
		}
	}
	for q := 0; q < n; q++ {
		for b := 0; b < n; b++ {
			if m.vote(s, q, b, &t) {
				emit(mkAction2(actVote, b, q), &t)
			}
		}
	}
	for b := 0; b < n; b++ {
		if m.promote(s, b, &t) {
			emit(mkAction(actPromote, b), &t)
		}
	}
	for b := 0; b < n; b++ {
		m.propose(s, b, func(t *State) { emit(mkAction(actPropose, b), t) })
	}
	for b := 0; b < n; b++ {
		if m.persist(s, b, &t) {
			emit(mkAction(actPersist, b), &t)
		}
	}
	for l := 0; l < n; l++ {
		for q := 0; q < n; q++ {
			if m.replicate(s, l, q, &t) {
				emit(mkAction2(actReplicate, l, q), &t)
			}
		}
	}
	for b := 0; b < n; b++ {
		if m.advanceCommit(s, b, &t) {
			emit(mkAction(actAdvanceCommit, b), &t)
		}
	}
	for b := 0; b < n; b++ {
		if m.apply(s, b, &t) {
			emit(mkAction(actApply, b), &t)
		}
	}
	for b := 0; b < n; b++ {
		if m.applyState(s, b, &t) {
			emit(mkAction(actApplyState, b), &t)
		}
	}
	for b := 0; b < n && m.cfg.Crashes&CrashForget != 0; b++ {
		m.crash(s, b, &t)
		emit(mkAction(actCrash, b), &t)
	}
	for b := 0; b < n && m.cfg.Crashes&CrashKeep != 0; b++ {
		if m.crashKeeping(s, b, &t) {
			emit(mkAction(actCrashKeep, b), &t)
		}
	}
	for b := 0; b < n; b++ {
		m.reconfigure(s, b, func(i int, t *State) { emit(mkAction2(actReconfigure, b, i), t) })
	}
	for b := 0; b < n; b++ {
		if m.applyConf(s, b, &t) {
			emit(mkAction(actApplyConf, b), &t)
		}
	}
}

// step returns the successor of s by action a, if a is enabled in s.
func (m *model) step(s *State, a action) (State, bool) {
	var out State
	found := false
	m.successors(s, func(b action, t *State) {
		if !found && b == a {
			out, found = *t, true
		}
	})
	return out, found
}

func lastTerm(l []proposal) uint8 {
	if len(l) == 0 {
		return 0
	}
	return l[len(l)-1].term
}

// upToDate is raft's election restriction: l is at least as up to date as m.
func upToDate(l, m []proposal) bool {
	tl, tm := lastTerm(l), lastTerm(m)
	return tl > tm || (tl == tm && len(l) >= len(m))
}

// timeout: b's election timer fires; it starts the next term as a
// candidate voting for itself.
func (m *model) timeout(s *State, b int, t *State) bool {
	br := &s.b[b]
	if br.role == roleLeader || br.voters&(1<<b) == 0 || int(br.term) >= m.cfg.MaxTerm {
		return false
	}
	*t = *s
	tb := &t.b[b]
	tb.term++
	tb.votedFor = uint8(b + 1)
	tb.role = roleCandidate
	tb.votes = 1 << b
	return true
}

// vote: q grants candidate b's vote request, and the grant reaches b.
func (m *model) vote(s *State, q, b int, t *State) bool {
	qb, cb := &s.b[q], &s.b[b]
	if q == b || cb.voters&(1<<q) == 0 || cb.role != roleCandidate || cb.votes&(1<<q) != 0 || qb.term > cb.term {
		return false
	}
	if qb.term == cb.term && qb.votedFor != 0 && int(qb.votedFor) != b+1 {
		return false
	}
	if m.cfg.Defect != DefectElectStale && !upToDate(cb.logSeq(), qb.logSeq()) {
		return false
	}
	*t = *s
	tq := &t.b[q]
	tq.term = cb.term
	tq.votedFor = uint8(b + 1)
	tq.role = roleFollower
	tq.votes = 0
	tq.acked = [BrokersMax]uint8{}
	t.b[b].votes |= 1 << q
	return true
}

// promote: a candidate whose votes are a quorum leads its term (and, with
// EmptyEntries, appends its term's empty entry, as raft does).
func (m *model) promote(s *State, b int, t *State) bool {
	br := &s.b[b]
	if br.role != roleCandidate || !quorumIn(br.votes, br.voters) {
		return false
	}
	*t = *s
	t.b[b].role = roleLeader
	t.b[b].votes = 0
	if m.cfg.EmptyEntries {
		t.b[b].appendLog(emptyEntry(br.term))
	}
	return true
}

// emptyEntry is a new leader's empty entry of term (cid 0, kindNone).
func emptyEntry(term uint8) proposal { return proposal{term: term, kind: kindNone, part: partWhole} }

// isEmptyEntry reports whether p is a leader's empty entry.
func isEmptyEntry(p proposal) bool { return p.term != 0 && p.kind == kindNone }

// propose: the next client commit reaches leader b's log, once per
// expected offset its client may pick (TLA+ \E e \in Exps): a commit_if
// expects b's applied shard log's next or, with ExpChoice, any of
// 1..MaxCommits (its client read a tail that pipelined writes move); a
// commit expects none.
func (m *model) propose(s *State, b int, emit func(t *State)) {
	if s.b[b].role != roleLeader || int(s.nextCid) > m.cfg.MaxCommits {
		return
	}
	kind := commitKind[s.nextCid-1]
	if m.cfg.ExpChoice && kind == kindCommitIf {
		for e := uint8(1); int(e) <= m.cfg.MaxCommits; e++ {
			var t State
			m.proposeAt(s, b, kind, e, &t)
			emit(&t)
		}
		return
	}
	var e uint8
	if kind == kindCommitIf {
		e = s.b[b].shardLen + 1
	}
	var t State
	m.proposeAt(s, b, kind, e, &t)
	emit(&t)
}

// proposeAt appends the next commit, of kind expecting offset e, to
// leader b's log in t.
func (m *model) proposeAt(s *State, b int, kind, e uint8, t *State) {
	*t = *s
	l := &t.b[b]
	cid := s.nextCid
	if m.cfg.Variant == SplitRecords {
		var e2 uint8
		if e != 0 {
			e2 = e + 1
		}
		l.appendLog(proposal{term: l.term, cid: cid, kind: kind, exp: e, part: partEvent})
		l.appendLog(proposal{term: l.term, cid: cid, kind: kind, exp: e2, part: partState})
	} else {
		l.appendLog(proposal{term: l.term, cid: cid, kind: kind, exp: e, part: partWhole})
	}
	t.nextCid++
}

// persist: b's log reaches its disk (the leader's own appends; a
// follower persists what it receives before acknowledging it).
func (m *model) persist(s *State, b int, t *State) bool {
	if s.b[b].durable >= s.b[b].logLen {
		return false
	}
	*t = *s
	t.b[b].durable = t.b[b].logLen
	return true
}

// common returns the length of the longest common prefix of two logs.
func common(l, m []proposal) int {
	i := 0
	for i < len(l) && i < len(m) && l[i] == m[i] {
		i++
	}
	return i
}

// replicate: leader l's append message reaches q, whose term is not
// newer: q moves to l's term as its follower, takes l's next entry it
// lacks (dropping a conflicting suffix) and l's commit mark, persists, and
// acknowledges the prefix it shares with l. A step that changes nothing
// is not taken.
func (m *model) replicate(s *State, l, q int, t *State) bool {
	ld, fo := &s.b[l], &s.b[q]
	if ld.role != roleLeader || l == q || (ld.voters|ld.learners)&(1<<q) == 0 || fo.term > ld.term {
		return false
	}
	ll := ld.logSeq()
	c := common(fo.logSeq(), ll)
	matched := c
	if c < len(ll) {
		matched = c + 1
	}
	nc := fo.commit
	if lim := min(ld.commit, uint8(matched)); lim > nc {
		nc = lim
	}
	*t = *s
	tb := &t.b[q]
	if c < len(ll) {
		tb.truncateLog(uint8(c))
		tb.appendLog(ll[c])
	}
	tb.durable = tb.logLen
	tb.commit = nc
	if fo.term < ld.term {
		tb.votedFor = 0
	}
	tb.term = ld.term
	tb.role = roleFollower
	tb.votes = 0
	tb.acked = [BrokersMax]uint8{}
	t.b[l].acked[q] = uint8(matched)
	return *t != *s
}

// advanceCommit: leader l moves its committed mark to the highest index
// of its own term that a quorum holds: itself on disk, the others as they
// acknowledged.
func (m *model) advanceCommit(s *State, l int, t *State) bool {
	ld := &s.b[l]
	if ld.role != roleLeader {
		return false
	}
	for n := int(ld.logLen); n > int(ld.commit); n-- {
		if ld.log[n-1].term != ld.term {
			continue
		}
		var holders uint8
		for q := 0; q < m.cfg.Brokers; q++ {
			if (q == l && int(ld.durable) >= n) || (q != l && int(ld.acked[q]) >= n) {
				holders |= 1 << q
			}
		}
		if quorumIn(holders, ld.voters) || (m.cfg.Defect == DefectCommitWithoutQuorum && holders != 0) {
			*t = *s
			t.b[l].commit = uint8(n)
			return true
		}
	}
	return false
}

// written reports whether proposal p is written when b applies it.
func (m *model) written(p proposal, br *broker) bool {
	return p.kind == kindCommit || p.exp == br.shardLen+1 || m.cfg.Defect == DefectConditionAtProposal
}

// answerClient sets the leader's reply to p's client once it has applied
// p's last part (TLA+ Answer); sh is the shard length after applying.
func answerClient(t *State, b int, p proposal, idx uint8, w bool, sh uint8) {
	if t.b[b].role != roleLeader || t.reply[p.cid-1].st != replyNone || p.part == partEvent {
		return
	}
	x := p.exp
	if p.part == partState && p.exp != 0 {
		x = p.exp - 1
	}
	if w {
		at := sh
		if p.part == partState {
			at--
		}
		t.reply[p.cid-1] = answer{st: replyWritten, at: at, idx: idx, exp: x, term: t.b[b].term}
		return
	}
	t.reply[p.cid-1] = answer{st: replyRefused, at: sh + 1, idx: idx, exp: x, term: t.b[b].term}
}

// apply: b applies its next committed proposal; a written record reaches
// the shard log and the state view together (PartialApply: only the event).
func (m *model) apply(s *State, b int, t *State) bool {
	br := &s.b[b]
	if br.mid || br.applied >= br.commit || br.log[br.applied].kind == kindConf {
		return false
	}
	*t = *s
	tb := &t.b[b]
	i := br.applied + 1
	p := br.log[i-1]
	if isEmptyEntry(p) {
		tb.applied = i // it writes nothing
		return true
	}
	w := m.written(p, br)
	r := p
	r.term = 0
	if w {
		tb.appendShard(r)
	}
	if w && m.cfg.Variant == PartialApply {
		tb.mid = true
		return true
	}
	if w {
		tb.applyRecord(r, tb.shardLen)
	}
	tb.applied = i
	answerClient(t, b, p, i, w, tb.shardLen)
	return true
}

// applyState: PartialApply's second step, the state half of the record.
func (m *model) applyState(s *State, b int, t *State) bool {
	br := &s.b[b]
	if !br.mid {
		return false
	}
	*t = *s
	tb := &t.b[b]
	i := br.applied + 1
	tb.applyRecord(br.shard[br.shardLen-1], br.shardLen)
	tb.applied = i
	tb.mid = false
	answerClient(t, b, br.log[i-1], i, true, tb.shardLen)
	return true
}

// crash: b crashes and restarts; its term, vote and persisted raft log
// survive; its commit mark, applied views, role and received messages are
// lost.
func (m *model) crash(s *State, b int, t *State) {
	*t = *s
	tb := &t.b[b]
	tb.truncateLog(tb.durable)
	tb.commit, tb.applied, tb.mid = 0, 0, false
	tb.shard = [logMax]proposal{}
	tb.shardLen = 0
	tb.kv = [keysMax]slot{}
	tb.role, tb.votes = roleFollower, 0
	tb.acked = [BrokersMax]uint8{}
}
