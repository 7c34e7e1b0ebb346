package tla

import (
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/modeltrace"
)

// Each function below checks one trace step against one of the model's
// actions (refined as tracestate.go says) from the current state and, if
// the action explains it, takes the step; otherwise it returns why not.
// They take a step only after every check passed.

// restart explains a Restart as Crash(b) followed by hidden steps: the
// stored log is the persisted prefix (plus entries of a store commit that
// landed though its round was not seen), the stored commit mark is one a
// leader committed, and the applied views are rebuilt by re-applying the
// log up to the stored applied index.
func (v *TraceValidator) restart(g *traceGroup, s *modeltrace.Step) error {
	br := g.broker(s.Broker)
	if err := g.groupConstants(s); err != nil {
		return err
	}
	x0 := s.Index // the stored snapshot's index: 1 at bootstrap, else the compaction point
	if x0 == 0 && len(br.log) == 0 {
		return v.restartEmpty(br, s)
	}
	switch {
	case len(s.Entries) == 0 || x0 < 1 || x0 > uint64(len(br.log)):
		return fmt.Errorf("the stored log must start at a snapshot of an entry the broker held (index %d, its log 1..%d)", x0, len(br.log))
	case s.Entries[0].Term != br.log[x0-1].Term:
		return fmt.Errorf("the stored snapshot at index %d has term %d, but the entry there has term %d", x0, s.Entries[0].Term, br.log[x0-1].Term)
	case x0 > 1 && x0 > br.applied:
		return fmt.Errorf("the log was compacted at index %d, past the applied index %d", x0, br.applied)
	}
	// The compacted prefix stays the model's log; the stored rest follows it.
	stored := append(append([]modeltrace.Entry(nil), br.log[:x0]...), s.Entries[1:]...)
	if err := storedTermsAscend(stored); err != nil {
		return err
	}
	for i := range br.log {
		if i >= len(stored) || stored[i] != br.log[i] {
			return fmt.Errorf("the stored log lost or changed persisted entry %d (had term %d)", i+1, br.log[i].Term)
		}
	}
	var fresh []entryKey // hidden persists: entries a leader proposed, or b's own
	for i := len(br.log); i < len(stored); i++ {
		k := entryKey{stored[i].Term, uint64(i + 1)}
		if p, ok := g.entries.sent(k); ok && p.digest == stored[i].Digest {
			continue
		}
		if g.leaders[k.term] != s.Broker {
			return fmt.Errorf("stored entry %d (term %d) was never proposed by the leader of its term", k.index, k.term)
		}
		fresh = append(fresh, k)
	}
	c, a := s.CommitMark, s.Applied
	switch {
	case c > uint64(len(stored)):
		return fmt.Errorf("stored commit mark %d is past the stored log's end %d", c, len(stored))
	case c > br.commit && (c > uint64(len(g.committed)) || g.committed[c-1] != stored[c-1]):
		return fmt.Errorf("stored commit mark %d was never committed (group committed 1..%d)", c, len(g.committed))
	case a > c:
		return fmt.Errorf("stored applied index %d is past the stored commit mark %d", a, c)
	}
	next, first, err := v.rebuild(g, a, s.Scopes)
	if err != nil {
		return err
	}
	if fin := g.finalizedAt(a); s.Finalized != fin {
		return fmt.Errorf("broker %d restarted with atomic_commit finalized %t, but at applied index %d the group's log has it %t", s.Broker, s.Finalized, a, fin)
	}
	for _, k := range fresh {
		g.entries.send(k, sentEntry{digest: stored[k.index-1].Digest, prevTerm: stored[k.index-2].Term})
		g.noteAppend(k, stored[k.index-1].Digest)
	}
	for i := len(br.log); i < len(stored); i++ {
		g.entries.ack(entryKey{stored[i].Term, uint64(i + 1)}, s.Broker)
	}
	br.up, br.leads = true, 0
	br.log = stored
	br.commit, br.applied, br.next, br.first = c, a, next, first
	br.finalized, br.incarnation = s.Finalized, g.incarnationAt(a)
	br.conf = g.membershipAt(stored, a)
	v.dropAnswers(s.Broker)
	v.dropReads(s.Broker, 0)
	return nil
}

// storedTermsAscend refuses a stored log whose terms fall somewhere (a
// suffix of an older leader's entries kept behind a newer one's): raft's
// logs never hold one, and a stored log is what raft reads back.
func storedTermsAscend(stored []modeltrace.Entry) error {
	for i := 1; i < len(stored); i++ {
		if stored[i].Term < stored[i-1].Term {
			return fmt.Errorf("the stored log has entry %d of term %d after entry %d of term %d: terms along a log never decrease", i+1, stored[i].Term, i, stored[i-1].Term)
		}
	}
	return nil
}

// restartEmpty is the Restart of an identity that joined with an empty
// log and holds none yet (it catches up by snapshot): nothing stored,
// nothing committed or applied, no configuration.
func (v *TraceValidator) restartEmpty(br *traceBroker, s *modeltrace.Step) error {
	if len(s.Entries) != 1 || s.Entries[0] != (modeltrace.Entry{}) || s.CommitMark != 0 || s.Applied != 0 || len(s.Scopes) != 0 || s.Finalized {
		return fmt.Errorf("an identity with an empty log restarts with a stored log, commit mark %d, applied index %d, %d scopes or finalized %t", s.CommitMark, s.Applied, len(s.Scopes), s.Finalized)
	}
	br.up, br.leads = true, 0
	br.commit, br.applied = 0, 0
	br.finalized, br.incarnation = false, bootIncarnation
	v.dropAnswers(s.Broker)
	v.dropReads(s.Broker, 0)
	return nil
}

// snapshot is a leader's snapshot installed on b (Replicate of the
// committed prefix, then the hidden applies): the snapshot's entry is
// committed, past b's commit mark; b's log becomes the committed prefix up
// to it, applied there, and its scopes are what applying that prefix gives.
func (v *TraceValidator) snapshot(g *traceGroup, s *modeltrace.Step) error {
	br := g.broker(s.Broker)
	x := s.Index
	switch {
	case x < 1 || x > uint64(len(g.committed)) || g.committed[x-1].Term != s.Term:
		return fmt.Errorf("the snapshot at index %d (term %d) is of no committed entry (group committed 1..%d)", x, s.Term, len(g.committed))
	case x <= br.commit:
		return fmt.Errorf("the snapshot at index %d is not past the commit mark %d", x, br.commit)
	}
	next, first, err := v.rebuild(g, x, s.Scopes)
	if err != nil {
		return err
	}
	v.logChangedFrom(s.Broker, br.log, g.committed[:x])
	br.log = append(br.log[:0:0], g.committed[:x]...)
	br.commit, br.applied, br.next, br.first = x, x, next, first
	br.finalized, br.incarnation = g.finalizedAt(x), g.incarnationAt(x)
	br.conf = g.membershipAt(br.log, x)
	return nil
}

// rebuild re-applies b's log up to applied (hidden Apply steps): a scope's
// next offset is the count of records written by entries up to applied,
// its first retained offset what the drop points and retention by count
// give there (firstAt), and both must equal what the broker rebuilt from
// its store.
func (v *TraceValidator) rebuild(g *traceGroup, applied uint64, scopes []modeltrace.ScopeNext) (next, first []uint64, err error) {
	next = make([]uint64, len(g.written))
	first = make([]uint64, len(g.written))
	withRecords := 0 // scopes whose next offset is past 0
	for id, idx := range g.written {
		next[id] = uint64(sort.Search(len(idx), func(i int) bool { return idx[i] > applied }))
		first[id] = g.firstAt(id, applied, next[id])
		if next[id] > 0 {
			withRecords++
		}
	}
	seen := 0
	for _, sc := range scopes {
		wantNext, wantFirst := uint64(0), uint64(0)
		if id, ok := g.scopeIDs[sc.Tenant]; ok && id < len(next) {
			wantNext, wantFirst = next[id], first[id]
		}
		if sc.Next != wantNext || sc.First != wantFirst {
			return nil, nil, fmt.Errorf("scope %q rebuilt with offsets %d..%d (first retained..next), but re-applying the log to index %d gives %d..%d", sc.Tenant, sc.First, sc.Next, applied, wantFirst, wantNext)
		}
		if sc.Next > 0 {
			seen++
		}
	}
	if seen != withRecords {
		return nil, nil, fmt.Errorf("%d scopes rebuilt with records, but re-applying the log to index %d writes records in %d", seen, applied, withRecords)
	}
	return next, first, nil
}

// vote is Timeout(b) when b votes for itself (it starts an election in
// that term as a candidate) and Vote(b, c) when it grants candidate c's
// request: one vote per broker and term, never in a term older than one
// it voted in; a leader of an older term steps down. The voter's log is
// recorded: the grant was judged on it.
func (v *TraceValidator) vote(g *traceGroup, s *modeltrace.Step) ([]string, error) {
	br := g.broker(s.Broker)
	tried := triedVote
	if s.Candidate == s.Broker {
		tried = triedTimeout
	}
	if s.Candidate == s.Broker && !br.conf.isVoter(s.Broker) {
		return tried, fmt.Errorf("broker %d starts an election in term %d, but it is no voter of its configuration (%v)", s.Broker, s.Term, br.conf)
	}
	k := entryKey{s.Term, s.Broker}
	if old, ok := g.votes[k]; ok && old.candidate != s.Candidate {
		return tried, fmt.Errorf("broker %d already voted for %d in term %d", s.Broker, old.candidate, s.Term)
	}
	if s.Term < br.term {
		return tried, fmt.Errorf("broker %d votes in term %d after voting in the newer term %d", s.Broker, s.Term, br.term)
	}
	g.votes[k] = voteRec{candidate: s.Candidate, lastTerm: lastTermOf(br.log), length: uint64(len(br.log))}
	v.enterTerm(g, s.Broker, br, s.Term)
	return tried, nil
}

// enterTerm moves b to term (no older than its own): a leader of an
// older term steps down, and the reads it had begun end unanswered (the
// broker answers them NotLeader).
func (v *TraceValidator) enterTerm(g *traceGroup, b uint64, br *traceBroker, term uint64) {
	br.term = max(br.term, term)
	if br.leads != 0 && br.leads < term {
		br.leads = 0
		v.dropReads(b, g.id)
	}
}

// promote is Promote(b): b timed out into the term (it voted for itself
// there), a quorum voted for b in it, each finding b's log at least as up
// to date as its own when it voted, and no other broker leads it.
func (v *TraceValidator) promote(g *traceGroup, s *modeltrace.Step) error {
	br := g.broker(s.Broker)
	if l, ok := g.leaders[s.Term]; ok {
		return fmt.Errorf("broker %d already leads term %d", l, s.Term)
	}
	if s.Term < br.term {
		return fmt.Errorf("broker %d leads term %d after voting in the newer term %d: a broker's term never goes back", s.Broker, s.Term, br.term)
	}
	if r, ok := g.votes[entryKey{s.Term, s.Broker}]; !ok || r.candidate != s.Broker {
		return fmt.Errorf("broker %d never started an election in term %d (it did not vote for itself there)", s.Broker, s.Term)
	}
	lt := lastTermOf(br.log)
	votes, ok := br.conf.quorum(func(q uint64) bool {
		r, ok := g.votes[entryKey{s.Term, q}]
		return ok && r.candidate == s.Broker && (lt > r.lastTerm || (lt == r.lastTerm && uint64(len(br.log)) >= r.length))
	})
	if !ok {
		return fmt.Errorf("only %d of %d voters %v of broker %d's configuration voted for it in term %d with a log no more up to date than its own", votes, len(br.conf.voters), br.conf.voters, s.Broker, s.Term)
	}
	g.leaders[s.Term] = s.Broker
	g.leadTerm = max(g.leadTerm, s.Term)
	br.leads = s.Term
	br.term = max(br.term, s.Term)
	v.dropReads(s.Broker, g.id) // begun while it led an older term: answered NotLeader when it stepped down
	v.pending.promoted = true
	return nil
}

// request is the first half of Propose: a broker proposes the client's
// write as the client sent it (the commit table's entry). The broker need
// not lead any more: raft forwards a follower's proposal to the leader,
// whose log then gains it (persist's Propose half).
func (v *TraceValidator) request(g *traceGroup, s *modeltrace.Step) error {
	br := g.broker(s.Broker)
	switch {
	case s.Asked == nil || s.Proposed == nil || !s.Asked.Equal(s.Proposed):
		return fmt.Errorf("the proposal %v is not the client's write %v", s.Proposed, s.Asked)
	case s.Digest == 0:
		return fmt.Errorf("the proposal has no data")
	case len(s.Proposed.StateOps) != s.Proposed.Ops:
		return fmt.Errorf("the write counts %d state operations but lists %d", s.Proposed.Ops, len(s.Proposed.StateOps))
	case s.Term < br.term:
		return fmt.Errorf("broker %d proposes in term %d after voting in the newer term %d: a broker's term never goes back", s.Broker, s.Term, br.term)
	}
	if err := operatorShape(s.Proposed); err != nil {
		return err
	}
	if old, ok := g.writes[s.Digest]; ok {
		return fmt.Errorf("proposal %016x was already proposed for client %d request %d", s.Digest, old.client, old.reqID)
	}
	scope := -1 // a marker names no scope
	if k := s.Proposed.Kind; k != modeltrace.KindFeature && k != modeltrace.KindIncarnation {
		scope = g.scopeID(s.Proposed.Tenant)
	}
	g.noteRequest(s.Digest, &clientWrite{broker: s.Broker, client: s.Client, reqID: s.ReqID, w: *s.Proposed.Clone(), scope: scope})
	return nil
}

// persist explains a Persist as Propose (the leader's own new entries of
// the term it leads, each a client's write or the new term's empty entry)
// or Replicate (entries some leader appended, with the previous entry's
// term the leader had), then Persist; a conflicting suffix is dropped,
// never a committed entry.
func (v *TraceValidator) persist(g *traceGroup, s *modeltrace.Step) ([]string, error) {
	br := g.broker(s.Broker)
	if s.Index < 2 || s.Index > uint64(len(br.log))+1 {
		return triedPersist, fmt.Errorf("entries from index %d leave a gap after the stored log's end %d (or overwrite the snapshot)", s.Index, len(br.log))
	}
	if err := g.persistTerm(br, s); err != nil {
		return triedPersist, err
	}
	var fresh []entryKey
	tried := triedReplicate
	prev := br.log[s.Index-2].Term
	for j, e := range s.Entries {
		i := s.Index + uint64(j)
		if e.Term < prev {
			return tried, fmt.Errorf("entry %d has term %d after term %d: terms along a log never decrease", i, e.Term, prev)
		}
		k := entryKey{e.Term, i}
		if p, ok := g.entries.sent(k); ok {
			if p.digest != e.Digest || p.prevTerm != prev {
				return tried, fmt.Errorf("entry %d (term %d, data %016x after term %d) differs from what its leader sent (data %016x after term %d)", i, e.Term, e.Digest, prev, p.digest, p.prevTerm)
			}
		} else {
			tried = triedPersist
			if err := v.propose(g, s.Broker, br, k, e); err != nil {
				return tried, err
			}
			fresh = append(fresh, k)
		}
		prev = e.Term
	}
	if err := v.dropsCommitted(g, br.log, s.Index, s.Entries); err != nil {
		return tried, err
	}
	for _, k := range fresh {
		j := k.index - s.Index
		pt := br.log[s.Index-2].Term
		if j > 0 {
			pt = s.Entries[j-1].Term
		}
		g.entries.send(k, sentEntry{digest: s.Entries[j].Digest, prevTerm: pt})
		g.noteAppend(k, s.Entries[j].Digest)
	}
	nl := append(br.log[:s.Index-1:s.Index-1], s.Entries...)
	v.logChangedFrom(s.Broker, br.log, nl)
	br.log = nl
	// Its term moves up; a deposed leader is not stepped down here: raft
	// may have advanced its commit mark as that leader earlier in the
	// round, and the round's Commit step follows its Persist steps.
	br.term = max(br.term, s.Term)
	br.commit = min(br.commit, uint64(len(br.log)))
	for j, e := range s.Entries {
		g.entries.ack(entryKey{e.Term, s.Index + uint64(j)}, s.Broker)
	}
	if len(fresh) > 0 {
		return triedPropose, nil
	}
	return triedReplicate, nil
}

// persistTerm checks the term a Persist's broker took its entries in (the
// append's term: a leader's own, or the term of the leader whose append it
// took): no older than the broker's own (a follower refuses an append of
// an older term, as a deposed leader sends after it voted in a newer
// one), no older than any entry's, and one some broker leads.
func (g *traceGroup) persistTerm(br *traceBroker, s *modeltrace.Step) error {
	if s.Term < br.term {
		return fmt.Errorf("broker %d takes entries in term %d after it voted in, led or took entries in the newer term %d: an append of an older term is refused", s.Broker, s.Term, br.term)
	}
	for j, e := range s.Entries {
		if e.Term > s.Term {
			return fmt.Errorf("entry %d has term %d, newer than the term %d of the append that brought it", s.Index+uint64(j), e.Term, s.Term)
		}
	}
	if _, ok := g.leaders[s.Term]; !ok {
		return fmt.Errorf("no broker leads term %d, the term broker %d took entries in", s.Term, s.Broker)
	}
	return nil
}

// propose checks that entry k is the leader's own new entry: b leads its
// term and its data is a client's write some broker proposed (or empty).
// The same write may reach the log twice: a follower forwards a proposal
// to the leader in a message the network may duplicate, as a client's
// retry may land twice.
func (v *TraceValidator) propose(g *traceGroup, b uint64, br *traceBroker, k entryKey, e modeltrace.Entry) error {
	if br.leads != k.term || g.leaders[k.term] != b {
		return fmt.Errorf("entry %d of term %d was never sent by a leader, and broker %d does not lead term %d (it leads %d)", k.index, k.term, b, k.term, br.leads)
	}
	if e.Digest == 0 {
		return nil
	}
	if _, ok := g.writes[e.Digest]; !ok {
		if _, ok := g.confs[e.Digest]; ok {
			return nil // a membership change it proposed
		}
		return fmt.Errorf("entry %d of term %d (data %016x) is no client's write nor a membership change it proposed", k.index, k.term, e.Digest)
	}
	return nil
}

// dropsCommitted refuses a Persist of es from index from that drops or
// changes a committed entry of old.
func (v *TraceValidator) dropsCommitted(g *traceGroup, old []modeltrace.Entry, from uint64, es []modeltrace.Entry) error {
	for i := from - 1; i < uint64(len(old)); i++ {
		if j := i - (from - 1); j < uint64(len(es)) && es[j] == old[i] {
			continue
		}
		if i < uint64(len(g.committed)) && old[i] == g.committed[i] {
			return fmt.Errorf("the new log drops committed entry %d (term %d)", i+1, old[i].Term)
		}
		break
	}
	return nil
}

// commit explains a moved commit mark as AdvanceCommit (b leads the term
// of the entry at the mark and a quorum acknowledged storing the log up to
// it: the followers' acks, sent once they persisted it, and b's own disk) or as
// Replicate's commit mark (a leader committed that prefix and b's log holds it).
func (v *TraceValidator) commit(g *traceGroup, s *modeltrace.Step) ([]string, error) {
	br := g.broker(s.Broker)
	tried := triedCommit
	c := s.Index
	if c < br.commit {
		return tried, fmt.Errorf("commit mark %d moves back from %d", c, br.commit)
	}
	if c < 1 || c > uint64(len(br.log)) {
		return tried, fmt.Errorf("commit mark %d is outside the stored log 1..%d", c, len(br.log))
	}
	e := br.log[c-1]
	learned := c <= uint64(len(g.committed)) && g.committed[c-1] == e
	if !learned {
		if br.leads == 0 || e.Term != br.leads {
			return tried, fmt.Errorf("no leader committed entry %d (term %d): the group committed 1..%d, and broker %d leads term %d, not the entry's", c, e.Term, len(g.committed), s.Broker, br.leads)
		}
		holders, ok := br.conf.quorum(func(q uint64) bool {
			return g.entries.acked(entryKey{e.Term, c}, q)
		})
		if !ok {
			return tried, fmt.Errorf("only %d of %d voters %v of broker %d's configuration acknowledged storing entry %d (term %d) on disk: no quorum", holders, len(br.conf.voters), br.conf.voters, s.Broker, c, e.Term)
		}
		if n := len(g.committed); c <= uint64(n) || br.log[n-1] != g.committed[n-1] {
			return tried, fmt.Errorf("broker %d's log differs from the committed prefix 1..%d", s.Broker, n)
		}
		g.extendCommitted(br.log[len(g.committed):c], br.leads)
		br.commit = c
		return triedAdvanceCommit, nil
	}
	br.commit = c
	return triedReplicate, nil
}

// answer is the model's Answer: the proposer answers a client with what
// applying the client's entry gave, never before.
func (v *TraceValidator) answer(s *modeltrace.Step) error {
	k := answerKey{s.Broker, s.Client, s.ReqID}
	for j, a := range v.answers[k] {
		if a.outcome == s.Outcome && a.offset == s.Offset {
			rest := append(v.answers[k][:j:j], v.answers[k][j+1:]...)
			if len(rest) == 0 {
				delete(v.answers, k)
			} else {
				v.answers[k] = rest
			}
			g := v.groups[a.group]
			g.answeredMax = max(g.answeredMax, a.index)
			if a.outcome == modeltrace.OutcomeWritten {
				v.pending.acked, v.pending.ackedIn = g.acknowledge(a.index, s.Offset), g
			}
			return nil
		}
	}
	return fmt.Errorf("broker %d applied no entry of client %d request %d that gave %s at %d (it applied %v)", s.Broker, s.Client, s.ReqID, s.Outcome, s.Offset, v.answers[k])
}

// dropAnswers forgets what a restarted broker could have answered: its
// pending requests died with it.
func (v *TraceValidator) dropAnswers(b uint64) {
	for k := range v.answers { //det:ok deletes; no order reaches output
		if k.broker == b {
			delete(v.answers, k)
		}
	}
}
