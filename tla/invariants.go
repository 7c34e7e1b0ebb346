package tla

import (
	"fmt"

	"github.com/felixsim/felixsim/properties"
)

// InvariantNames lists the model's invariants in the order the .cfg files
// list them and both TLC and the mirror check them.
func InvariantNames() []properties.InvariantName {
	names := make([]properties.InvariantName, len(invariants))
	for i, inv := range invariants {
		names[i] = inv.name
	}
	return names
}

// checker converts states to properties' view and runs the invariants.
// Its buffers are reused from state to state, so checking allocates little.
type checker struct {
	cfg      Config
	replicas [BrokersMax]properties.ReplicaView
	entries  [BrokersMax][logMax]properties.ViewEntry
	slots    [BrokersMax][keysMax]properties.ViewSlot
	events   [BrokersMax][logMax]properties.ViewEntry
	acks     []properties.AckedWrite
	outcomes []properties.ConditionalOutcome
	// ops[c-1] are commit c's operations in the view's terms.
	ops [CommitsMax][]properties.ViewOp
}

func newChecker(cfg Config) *checker {
	c := &checker{cfg: cfg}
	for i := range commitOps {
		for _, op := range commitOps[i] {
			v := properties.ViewOp{Delete: op.del, Key: keyNames[op.key]}
			if !op.del {
				v.Value = commitNames[i+1]
			}
			c.ops[i] = append(c.ops[i], v)
		}
	}
	return c
}

// intent is the properties.IntentFunc of the commit table.
func (c *checker) intent(event string) ([]properties.ViewOp, bool) {
	for i := 1; i <= c.cfg.MaxCommits; i++ {
		if commitNames[i] == event {
			return c.ops[i-1], true
		}
	}
	return nil, false
}

// view fills the replica view of broker b (offsets become 0-based).
func (c *checker) view(s *State, b int) *properties.ReplicaView {
	br := &s.b[b]
	r := &c.replicas[b]
	r.Name = brokerNames[b]
	r.Log = c.entries[b][:0]
	for o, rec := range br.shardSeq() {
		e := properties.ViewEntry{
			Offset:   uint64(o),
			HasEvent: rec.part == partWhole || rec.part == partEvent,
			Event:    commitNames[rec.cid],
		}
		if rec.kind == kindCommitIf {
			e.Conditional, e.ExpectedOffset = true, uint64(rec.exp)-1
		}
		if rec.part == partWhole || rec.part == partState {
			e.Ops = c.ops[rec.cid-1]
		}
		r.Log = append(r.Log, e)
	}
	r.NextOffset = uint64(len(r.Log))
	r.State = c.slots[b][:0]
	for k := 0; k < keysMax; k++ {
		if sl := br.kv[k]; sl.val != 0 {
			r.State = append(r.State, properties.ViewSlot{Key: keyNames[k], Value: commitNames[sl.val], Version: uint64(sl.ver) - 1})
		}
	}
	return r
}

// invariant is one named check of a state; the views of every broker are
// filled before it runs.
type invariant struct {
	name  properties.InvariantName
	check func(c *checker, s *State) error
}

// invariants are the model's invariants in checking order (InvariantNames);
// each is a registered safety invariant (checkTable).
var invariants = mustTable([]invariant{
	{properties.InvariantNoPartialCommit, (*checker).noPartialCommit},
	{properties.InvariantVersionIsOffset, (*checker).versionIsOffset},
	{properties.InvariantStateMatchesLog, (*checker).stateMatchesLog},
	{properties.InvariantCommittedNeverLost, (*checker).committedNeverLost},
	{properties.InvariantCommittedPrefixAgreement, (*checker).committedPrefixAgreement},
	{properties.InvariantConditionalWrites, (*checker).conditionalWrites},
})

// checkTable refuses a table naming an invariant the properties registry
// does not hold, or one whose family is not safety: the mirror checks
// states, and a state can only break a safety invariant.
func checkTable(table []invariant) error {
	for _, inv := range table {
		reg, err := properties.LookupInvariant(inv.name)
		if err != nil {
			return fmt.Errorf("mirror invariant table: %w", err)
		}
		if reg.Family != properties.FamilySafety {
			return fmt.Errorf("mirror invariant table: %s refused: family %s, but a model state can only break a safety invariant", string(inv.name), reg.Family)
		}
	}
	return nil
}

// mustTable returns table, panicking if checkTable refuses it: the table
// is code, so a bad entry is a programmer error.
func mustTable(table []invariant) []invariant {
	if err := checkTable(table); err != nil {
		panic(err)
	}
	return table
}

// check returns the first invariant s violates, in checking order.
func (c *checker) check(s *State) (name properties.InvariantName, err error) {
	c.fill(s)
	for _, inv := range invariants {
		if err := inv.check(c, s); err != nil {
			return inv.name, err
		}
	}
	return "", nil
}

// fill converts every broker of s to its replica view.
func (c *checker) fill(s *State) {
	for b := 0; b < c.cfg.Brokers; b++ {
		c.view(s, b)
	}
}

// noPartialCommit: every broker's readers see whole commits (properties).
func (c *checker) noPartialCommit(s *State) error {
	for b := 0; b < c.cfg.Brokers; b++ {
		if err := properties.NoPartialCommit(c.reader(b), c.intent); err != nil {
			return err
		}
	}
	return nil
}

// versionIsOffset: every broker's versions name records (properties).
func (c *checker) versionIsOffset(s *State) error {
	for b := 0; b < c.cfg.Brokers; b++ {
		if err := properties.VersionIsOffset(&c.replicas[b]); err != nil {
			return err
		}
	}
	return nil
}

// stateMatchesLog: every broker not between PartialApply's two steps has
// the state its applied log folds to (properties).
func (c *checker) stateMatchesLog(s *State) error {
	for b := 0; b < c.cfg.Brokers; b++ {
		if s.b[b].mid {
			continue
		}
		if err := properties.StateMatchesLog(&c.replicas[b]); err != nil {
			return err
		}
	}
	return nil
}

// reader is what a subscriber, a consumer group and state_get see at
// broker b: the events of its applied log and its state view.
func (c *checker) reader(b int) *properties.ReaderView {
	r := &c.replicas[b]
	ev := c.events[b][:0]
	for _, e := range r.Log {
		if e.HasEvent {
			ev = append(ev, e)
		}
	}
	return &properties.ReaderView{Broker: r.Name, Events: ev, State: r.State}
}

// committedNeverLost: every written reply's record is at its offset on
// every replica reaching it (properties), a quorum's raft logs hold its
// proposal on disk at the index it was applied from (a quorum of a
// configuration it may have been committed in: the initial one, or one a
// membership change before that index gives), and so does the log (in
// memory at least) of every leader of the answering leader's term or a
// later one.
func (c *checker) committedNeverLost(s *State) error {
	rs := c.replicas[:c.cfg.Brokers]
	c.acks = c.acks[:0]
	for i := 0; i < c.cfg.MaxCommits; i++ {
		a := s.reply[i]
		if a.st != replyWritten {
			continue
		}
		c.acks = append(c.acks, properties.AckedWrite{Event: commitNames[i+1], Offset: uint64(a.at) - 1})
		var holders uint8
		for q := 0; q < c.cfg.Brokers; q++ {
			if holdsDurably(&s.b[q], a.idx, uint8(i+1)) {
				holders |= 1 << q
			}
		}
		if !c.heldByQuorum(s, holders, a.idx) {
			return properties.InvariantCommittedNeverLost.Errorf("%s was acknowledged from raft index %d, but only the raft logs of %s hold it there on disk, a quorum of no configuration it may have been committed in",
				commitNames[i+1], a.idx, formatSet(holders, c.cfg.Brokers))
		}
		for l := 0; l < c.cfg.Brokers; l++ {
			if ld := &s.b[l]; ld.role == roleLeader && ld.term >= a.term && !holds(ld, a.idx, uint8(i+1)) {
				return properties.InvariantCommittedNeverLost.Errorf("%s was acknowledged from raft index %d in term %d, but %s, leader of term %d, does not hold it there",
					commitNames[i+1], a.idx, a.term, brokerNames[l], ld.term)
			}
		}
	}
	return properties.CommittedNeverLost(c.acks, rs)
}

// heldByQuorum reports whether the brokers in holders (each holding index
// idx) are a majority of the initial voters, or of the voters a
// membership change before idx gives, read from a holder's log (TLA+ \E q
// \in H : \E V \in VotersBefore(log[q], idx) : QuorumIn(H, V)).
func (c *checker) heldByQuorum(s *State, holders uint8, idx uint8) bool {
	init := uint8(1)<<(c.cfg.Brokers-c.cfg.Spares) - 1
	for q := 0; q < c.cfg.Brokers; q++ {
		if holders&(1<<q) == 0 {
			continue
		}
		if quorumIn(holders, init) {
			return true
		}
		for j := uint8(0); j+1 < idx; j++ {
			if e := s.b[q].log[j]; e.kind == kindConf && quorumIn(holders, e.voters) {
				return true
			}
		}
	}
	return false
}

// holds reports whether br's raft log has commit cid at index idx (1-based).
func holds(br *broker, idx, cid uint8) bool {
	return idx >= 1 && br.logLen >= idx && br.log[idx-1].cid == cid
}

// holdsDurably reports whether br has commit cid at index idx on disk.
func holdsDurably(br *broker, idx, cid uint8) bool {
	return br.durable >= idx && holds(br, idx, cid)
}

// committedPrefixAgreement: the applied shard logs agree (properties) and
// so do the raft logs up to each pair's lower committed mark.
func (c *checker) committedPrefixAgreement(s *State) error {
	n := c.cfg.Brokers
	rs := c.replicas[:n]
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			m := min(s.b[a].commit, s.b[b].commit)
			for i := uint8(0); i < m; i++ {
				if s.b[a].log[i] != s.b[b].log[i] {
					return properties.InvariantCommittedPrefixAgreement.Errorf("committed raft index %d is %s on %s but %s on %s",
						i+1, formatProposal(s.b[a].log[i]), brokerNames[a], formatProposal(s.b[b].log[i]), brokerNames[b])
				}
			}
		}
	}
	return properties.CommittedPrefixAgreement(rs)
}

// conditionalWrites gathers the commit_if answers and checks them.
func (c *checker) conditionalWrites(s *State) error {
	rs := c.replicas[:c.cfg.Brokers]
	c.outcomes = c.outcomes[:0]
	for i := 0; i < c.cfg.MaxCommits; i++ {
		a := s.reply[i]
		if a.st == replyNone || (a.st == replyWritten && a.exp == 0) {
			continue
		}
		c.outcomes = append(c.outcomes, properties.ConditionalOutcome{
			Event: commitNames[i+1], ExpectedOffset: uint64(a.exp) - 1,
			Written: a.st == replyWritten, Offset: uint64(a.at) - 1,
		})
	}
	if err := properties.ConditionalWrites(c.outcomes, rs); err != nil {
		return err
	}
	return trueTails(s, c.cfg)
}

// trueTails: a refused commit_if reported the true tail, which on any
// broker that has applied past the refusal is one more than the number of
// records of earlier commits (logs hold commits in increasing id order).
func trueTails(s *State, cfg Config) error {
	for i := 0; i < cfg.MaxCommits; i++ {
		a := s.reply[i]
		if a.st != replyRefused {
			continue
		}
		cid := uint8(i + 1)
		for b := 0; b < cfg.Brokers; b++ {
			br := &s.b[b]
			if br.applied < a.idx {
				continue
			}
			before := uint8(0)
			for _, r := range br.shardSeq() {
				if r.cid < cid {
					before++
				}
			}
			if a.at != before+1 {
				return properties.InvariantConditionalWrites.Errorf("%s was refused reporting tail %d, but %s applied %d earlier records, so the true tail was %d",
					commitNames[cid], int(a.at)-1, brokerNames[b], before, before)
			}
		}
	}
	return nil
}
