package tla

// Action kinds; an action is a kind and a broker (for the per-broker ones).
const (
	actInit uint8 = iota
	actPromote
	actPropose
	actReplicate
	actAdvanceCommit
	actApply
	actApplyState
	actCrash
	actPersist
)

var actionNames = [...]string{"Init", "Promote", "Propose", "Replicate", "AdvanceCommit", "Apply", "ApplyState", "Crash", "Persist"}

// action packs an action kind and a broker index.
type action uint8

func mkAction(kind uint8, b int) action { return action(kind<<4 | uint8(b)) }

// String renders the action as the TLA+ spec names it, e.g. Apply(b2).
func (a action) String() string {
	kind, b := uint8(a)>>4, int(a&15)
	switch kind {
	case actInit, actPropose, actAdvanceCommit:
		return actionNames[kind]
	}
	return actionNames[kind] + "(" + brokerNames[b] + ")"
}

// model generates a config's successor states; it holds no state of its own.
type model struct {
	cfg Config
}

// initState is the model's one initial state.
func (m *model) initState() State {
	return State{nextCid: 1}
}

// successors calls emit for every successor of s, one per enabled action
// instance, in a fixed order (the same multiset TLC generates).
func (m *model) successors(s *State, emit func(a action, t *State)) {
	n := m.cfg.Brokers
	var t State
	for b := 0; b < n; b++ {
		if m.promote(s, b, &t) {
			emit(mkAction(actPromote, b), &t)
		}
	}
	if m.propose(s, &t) {
		emit(mkAction(actPropose, 0), &t)
	}
	for b := 0; b < n; b++ {
		if m.persist(s, b, &t) {
			emit(mkAction(actPersist, b), &t)
		}
	}
	for b := 0; b < n; b++ {
		// TLC enumerates the two disjuncts of Replicate's guard as two
		// branches, so when both hold it generates the successor twice;
		// emitting it twice keeps Generated equal to TLC's count.
		for k := m.replicate(s, b, &t); k > 0; k-- {
			emit(mkAction(actReplicate, b), &t)
		}
	}
	if m.advanceCommit(s, &t) {
		emit(mkAction(actAdvanceCommit, 0), &t)
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
	for b := 0; b < n; b++ {
		m.crash(s, b, &t)
		emit(mkAction(actCrash, b), &t)
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

// quorum reports whether count brokers are a majority.
func (m *model) quorum(count int) bool { return 2*count > m.cfg.Brokers }

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

// promote: b wins the election for the next term.
func (m *model) promote(s *State, b int, t *State) bool {
	if int(s.term) >= m.cfg.MaxTerm || int(s.leader) == b+1 {
		return false
	}
	votes := 0
	for q := 0; q < m.cfg.Brokers; q++ {
		if upToDate(s.b[b].logSeq(), s.b[q].logSeq()) || m.cfg.Defect == DefectElectStale {
			votes++
		}
	}
	if !m.quorum(votes) {
		return false
	}
	*t = *s
	t.term++
	t.leader = uint8(b + 1)
	return true
}

// propose: the next client commit reaches the leader's log.
func (m *model) propose(s *State, t *State) bool {
	if s.leader == 0 || int(s.nextCid) > m.cfg.MaxCommits {
		return false
	}
	*t = *s
	l := &t.b[s.leader-1]
	cid := s.nextCid
	kind := commitKind[cid-1]
	var e uint8
	if kind == kindCommitIf {
		e = l.shardLen + 1
	}
	if m.cfg.Variant == SplitRecords {
		var e2 uint8
		if e != 0 {
			e2 = e + 1
		}
		l.appendLog(proposal{term: s.term, cid: cid, kind: kind, exp: e, part: partEvent})
		l.appendLog(proposal{term: s.term, cid: cid, kind: kind, exp: e2, part: partState})
	} else {
		l.appendLog(proposal{term: s.term, cid: cid, kind: kind, exp: e, part: partWhole})
	}
	t.nextCid++
	return true
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

// replicate: the leader sends follower b its next missing entry and its
// commit mark; b drops a conflicting suffix first. It returns how many of
// the guard's two disjuncts (new entry, new commit mark) hold.
func (m *model) replicate(s *State, b int, t *State) int {
	if s.leader == 0 || int(s.leader) == b+1 {
		return 0
	}
	ld, fo := &s.b[s.leader-1], &s.b[b]
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
	branches := 0
	if c < len(ll) {
		branches++
	}
	if nc != fo.commit {
		branches++
	}
	if branches == 0 {
		return 0
	}
	*t = *s
	tb := &t.b[b]
	if c < len(ll) {
		tb.truncateLog(uint8(c))
		tb.appendLog(ll[c])
		tb.durable = tb.logLen
	}
	tb.commit = nc
	return branches
}

// agree reports whether q's log holds the leader's first n entries.
func agree(q, l *broker, n int) bool {
	return int(q.durable) >= n && common(q.log[:n], l.log[:n]) == n
}

// advanceCommit: the leader moves its committed mark to the highest index
// of its own term that a quorum holds.
func (m *model) advanceCommit(s *State, t *State) bool {
	if s.leader == 0 {
		return false
	}
	l := &s.b[s.leader-1]
	for n := int(l.logLen); n > int(l.commit); n-- {
		if l.log[n-1].term != s.term {
			continue
		}
		count := 0
		for q := 0; q < m.cfg.Brokers; q++ {
			if agree(&s.b[q], l, n) {
				count++
			}
		}
		if m.quorum(count) || (m.cfg.Defect == DefectCommitWithoutQuorum && count >= 1) {
			*t = *s
			t.b[s.leader-1].commit = uint8(n)
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
	if int(t.leader) != b+1 || t.reply[p.cid-1].st != replyNone || p.part == partEvent {
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
		t.reply[p.cid-1] = answer{st: replyWritten, at: at, idx: idx, exp: x}
		return
	}
	t.reply[p.cid-1] = answer{st: replyRefused, at: sh + 1, idx: idx, exp: x}
}

// apply: b applies its next committed proposal; a written record reaches
// the shard log and the state view together (PartialApply: only the event).
func (m *model) apply(s *State, b int, t *State) bool {
	br := &s.b[b]
	if br.mid || br.applied >= br.commit {
		return false
	}
	*t = *s
	tb := &t.b[b]
	i := br.applied + 1
	p := br.log[i-1]
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

// crash: b crashes and restarts; its raft log survives, its commit mark,
// applied views and leadership are lost.
func (m *model) crash(s *State, b int, t *State) {
	*t = *s
	tb := &t.b[b]
	tb.truncateLog(tb.durable)
	tb.commit, tb.applied, tb.mid = 0, 0, false
	tb.shard = [logMax]proposal{}
	tb.shardLen = 0
	tb.kv = [keysMax]slot{}
	if int(t.leader) == b+1 {
		t.leader = 0
	}
}
