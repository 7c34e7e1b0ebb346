package tla

// Membership changes (FelixAtomicCommit.tla's Reconfigure and ApplyConf):
// a leader appends a simple change as an entry carrying the configuration
// it gives; a broker's configuration is the last change it applied.

// reconfigure calls emit once per membership change leader l may append
// (TLA+ \E c \in NextConfs(l)), with i numbering the choice: remove a
// voter other than itself, add a spare as a learner, promote a learner.
// l must lead, have applied an entry of its own term, and have no
// unapplied change in its log; at most cfg.MaxReconfigs are proposed.
func (m *model) reconfigure(s *State, l int, emit func(i int, t *State)) {
	ld := &s.b[l]
	if ld.role != roleLeader || int(s.nconf) >= m.cfg.MaxReconfigs || !m.mayReconfigure(ld) {
		return
	}
	var t State
	propose := func(i int, voters, learners uint8) {
		t = *s
		t.b[l].appendLog(proposal{term: ld.term, kind: kindConf, part: partWhole, voters: voters, learners: learners})
		t.nconf++
		emit(i, &t)
	}
	n := m.cfg.Brokers
	spares := (uint8(1)<<n - 1) &^ m.initVoters()
	for q := 0; q < n; q++ {
		if bit := uint8(1) << q; q != l && ld.voters&bit != 0 {
			propose(q, ld.voters&^bit, ld.learners)
		}
	}
	for q := 0; q < n; q++ {
		if bit := uint8(1) << q; spares&bit != 0 && (ld.voters|ld.learners)&bit == 0 {
			propose(n+q, ld.voters, ld.learners|bit)
		}
	}
	for q := 0; q < n; q++ {
		if bit := uint8(1) << q; ld.learners&bit != 0 {
			propose(2*n+q, ld.voters|bit, ld.learners&^bit)
		}
	}
}

// mayReconfigure reports raft's guard on a leader's membership change: it
// applied an entry of its own term, and every change its log holds.
func (m *model) mayReconfigure(ld *broker) bool {
	own := false
	for i := uint8(0); i < ld.applied; i++ {
		own = own || ld.log[i].term == ld.term
	}
	for i := ld.applied; i < ld.logLen; i++ {
		if ld.log[i].kind == kindConf {
			return false
		}
	}
	return own
}

// applyConf: b applies its next committed entry, a membership change: its
// configuration becomes the change's, unless it kept a newer one across
// a crash.
func (m *model) applyConf(s *State, b int, t *State) bool {
	br := &s.b[b]
	if br.mid || br.applied >= br.commit || br.log[br.applied].kind != kindConf {
		return false
	}
	*t = *s
	tb := &t.b[b]
	i := br.applied + 1
	p := br.log[i-1]
	tb.applied = i
	if i > br.confAt {
		tb.confAt, tb.voters, tb.learners = i, p.voters, p.learners
	}
	return true
}
