package tla

import (
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/modeltrace"
)

// The trace mode's state: FelixAtomicCommit's variables for one raft group
// (one stream shard), unbounded and refined where a real broker is finer
// than the model (tla/README.md, "Trace validation"): each broker has its
// own term and leadership (leads), votes are recorded per term, the
// entries leaders sent are kept as messages (proposed) so a follower's
// stored entries and learned commit marks are checked against what a
// leader really had, and each scope (tenant) of the shard has its own
// shard log. The constants come from the trace: the brokers from the
// validator's caller, the commit table from the Request steps.

// entryKey names a raft entry: (term, index) identifies it (Log Matching).
type entryKey struct{ term, index uint64 }

// sentEntry is an entry a leader appended: its data digest and the term of
// the entry before it, as an AppendEntries message carries them.
type sentEntry struct{ digest, prevTerm uint64 }

// clientWrite is a client's write a leader proposed (TLA+ Ops[c], Kind[c]).
type clientWrite struct {
	broker, client, reqID uint64
	w                     modeltrace.Write
	// scope is w.Tenant's scope number in the group (traceGroup.scopeIDs;
	// -1 for a marker, which names none).
	scope int
	// life says when the record may go (tracewrites.go).
	life writeLife
}

// voteRec is a broker's vote in a term and its log when it voted.
type voteRec struct{ candidate, lastTerm, length uint64 }

// answerKey names a client's request at the broker that proposed it.
type answerKey struct{ broker, client, reqID uint64 }

// answerRec is what applying a request's entry gave its proposer to
// answer, and the entry (raft group, index) it applied.
type answerRec struct {
	outcome      modeltrace.Outcome
	offset       uint64
	group, index uint64
}

// traceBroker is one broker's variables in one group.
type traceBroker struct {
	// up is false until the broker's first Restart.
	up bool
	// log is the stored raft log: entry index i at log[i-1] (index 1 is the
	// bootstrap snapshot). Every stored entry is durable (the broker
	// persists each Ready before acting on it), so durable = len(log).
	log []modeltrace.Entry
	// commit is the commit mark it knows; applied its last applied index.
	// Invariant: applied <= commit <= len(log).
	commit, applied uint64
	// term is the newest term the broker voted in (its own election's,
	// through Timeout, or another's, through Vote), led, or took a
	// leader's entries in (Persist): a lower bound of its current term,
	// which survives a restart. No Vote, Promote, Request or Persist of
	// the broker names an older term.
	term uint64
	// leads is the term this broker leads (0: it leads none).
	leads uint64
	// next[id] is scope id's next offset in its applied shard log, and
	// first[id] its first retained offset (0 past the slices' ends).
	// Invariant: first[id] <= next[id].
	next, first []uint64
	// finalized: atomic_commit is finalized at its applied index;
	// incarnation is its stream's incarnation there, as an order
	// (generation * 2 + deleted; traceretention.go).
	finalized   bool
	incarnation uint64
	// conf is the configuration its applied membership changes give.
	conf membership
}

// traceGroup is one raft group's state.
type traceGroup struct {
	id uint64
	// brokers[b] is broker b's variables (ids from 1; nil until it acts).
	brokers []*traceBroker
	// entries holds every entry a leader appended (the messages) and the
	// acknowledgements: broker b persisted entry (term, index), so it
	// acknowledges holding the log up to it (Log Matching) to the leader
	// that sent it, and a leader counts its own disk.
	entries entryTable
	// writes maps a proposal's data digest to the client's write, while a
	// later step may still name it (tracewrites.go); pruneAt orders the
	// writes that may go by the committed length they may go at, and
	// keepIndexes is how many committed entries a write outlives its last
	// naming by.
	writes      map[uint64]*clientWrite
	pruneAt     pruneQueue
	keepIndexes uint64
	// committed is the longest committed prefix any broker knows;
	// commitTerms[i] is the term of the leader whose AdvanceCommit first
	// committed committed[i] (0 for the bootstrap entry), and confPoints
	// the configurations the membership changes in it give, by index.
	committed   []modeltrace.Entry
	commitTerms []uint64
	confPoints  []confPoint
	// projected is the membership the state projection last covered,
	// ascending, and projectedAt how many of confPoints gave it
	// (tracestates.go).
	projected   []uint64
	projectedAt int
	// outcomes[i] is what the first Apply of raft index i gave; every
	// later Apply of i, on any broker, must give the same (grown as
	// applies reach new indexes).
	outcomes []appliedOutcome
	// drops[id] are scope id's drop points, ascending by index;
	// featureAt is the index of the first atomic_commit marker applied
	// (0: none), incarnations the incarnation markers that changed one,
	// ascending (traceretention.go).
	drops        [][]dropPoint
	featureAt    uint64
	incarnations []incarnationPoint
	// retainedMax (the most records a scope retains, 0: no cap) and
	// bootFinalized (the group booted with atomic_commit finalized) are
	// the group's constants, set by its first Restart (constantsSet).
	retainedMax   uint64
	bootFinalized bool
	constantsSet  bool
	// answeredMax is the highest raft index of an entry whose write a
	// broker answered (written or refused): a state read begun after that
	// answer must be served at a read index at least as high.
	answeredMax uint64
	// acked are the writes a broker acknowledged as written (Answer),
	// ascending by raft index: CommittedNeverLost's records.
	acked   []ackedWrite
	votes   map[entryKey]voteRec // key: (term, voter)
	leaders map[uint64]uint64    // term -> its leader
	// leadTerm is the newest term in leaders (0 before any).
	leadTerm uint64
	// scopeIDs numbers the scopes (tenants) the group's writes name, from
	// 0 in the order they were proposed, so that per-scope state is a
	// slice, not a map hashing the tenant at every apply; tenants[id] is
	// scope id's tenant.
	scopeIDs map[string]int
	tenants  []string
	// written[id][o] is the raft index of the entry written at offset o of
	// scope id (nil past the slice's end).
	// Invariant: each written[id] is strictly ascending. A broker appends
	// the entry it applies only at its next offset n = len(written[id]),
	// and written[id][:n] are entries it applied (its next offsets count
	// the records up to its applied index, at apply and at rebuild).
	written [][]uint64
	// recordDigests[id][o] is the digest of the record at offset o of
	// scope id (the write's Digest), and keyTouches[id][k] lists the
	// records of scope id that touch key k, ascending by offset: what a
	// reader of the scope must see (recorded when an offset is first
	// written, beside written).
	recordDigests [][]uint64
	keyTouches    []map[string][]keyTouch
	// peers is how many brokers bootstrapped the group (ids 1..peers, all
	// voting); confs maps a membership change's data digest to the
	// simple change a leader proposed.
	peers int
	confs map[uint64]*modeltrace.ConfChange
}

func newTraceGroup(id uint64, peers int) *traceGroup {
	return &traceGroup{id: id, peers: peers, confs: map[uint64]*modeltrace.ConfChange{},
		writes: map[uint64]*clientWrite{}, keepIndexes: writeKeepIndexes, votes: map[entryKey]voteRec{}, leaders: map[uint64]uint64{},
		scopeIDs: map[string]int{}, committed: []modeltrace.Entry{{Term: 1}}, commitTerms: []uint64{0}}
}

// appliedOutcome is what applying one raft index gave: its outcome, the
// offset, the error's code and the scope's first retained offset after.
type appliedOutcome struct {
	set     bool
	outcome modeltrace.Outcome
	offset  uint64
	err     string
	first   uint64
	broker  uint64 // the first broker that applied it, for messages
	// digest is the entry's data, and cmd what applying it again needs
	// of its write (the write's record may be gone by then).
	digest uint64
	cmd    command
}

// confPoint is the configuration a membership change committed at index
// gives (folded into the one before it).
type confPoint struct {
	index uint64
	conf  membership
}

// ackedWrite is a write a broker acknowledged as written: its entry at
// index, the term of the leader that committed it, and the voter sets a
// quorum holding it may be counted in (the bootstrap one and those the
// membership changes before index give).
type ackedWrite struct {
	index      uint64
	entry      modeltrace.Entry
	commitTerm uint64
	voterSets  [][]uint64
	// scope and offset name the record, for messages.
	tenant string
	offset uint64
}

// keyTouch is one record's last operation on a key: a put of value (its
// digest) or a delete, at offset.
type keyTouch struct {
	offset uint64
	del    bool
	value  uint64
}

// broker returns b's variables, as in Init before its first Restart.
func (g *traceGroup) broker(b uint64) *traceBroker {
	for uint64(len(g.brokers)) <= b {
		g.brokers = append(g.brokers, nil)
	}
	switch {
	case g.brokers[b] != nil:
	case b >= 1 && b <= uint64(g.peers):
		g.brokers[b] = &traceBroker{log: []modeltrace.Entry{{Term: 1}}, commit: 1, applied: 1, conf: bootstrapMembership(g.peers), incarnation: bootIncarnation}
	default: // an identity that joins later: an empty log, no configuration
		g.brokers[b] = &traceBroker{log: []modeltrace.Entry{}, incarnation: bootIncarnation}
	}
	return g.brokers[b]
}

// covering returns s lengthened with zero values, if need be, to hold
// index i.
func covering[T any](s []T, i int) []T {
	if i < len(s) {
		return s
	}
	return append(s, make([]T, i+1-len(s))...)
}

// scopeID returns tenant's scope number, numbering it if new.
func (g *traceGroup) scopeID(tenant string) int {
	id, ok := g.scopeIDs[tenant]
	if !ok {
		id = len(g.scopeIDs)
		g.scopeIDs[tenant] = id
		g.tenants = append(g.tenants, tenant)
	}
	return id
}

// tenantOf is scope id's tenant ("" for none).
func (g *traceGroup) tenantOf(id int) string {
	if id >= 0 && id < len(g.tenants) {
		return g.tenants[id]
	}
	return ""
}

// writtenIn returns scope id's record index: written[o] is the raft index
// of the entry written at offset o.
func (g *traceGroup) writtenIn(id int) []uint64 {
	if id < len(g.written) {
		return g.written[id]
	}
	return nil
}

// nextIn returns scope id's next offset in br's applied shard log.
func (br *traceBroker) nextIn(id int) uint64 {
	if id >= 0 && id < len(br.next) {
		return br.next[id]
	}
	return 0
}

func lastTermOf(l []modeltrace.Entry) uint64 {
	if len(l) == 0 {
		return 0
	}
	return l[len(l)-1].Term
}

// describe renders b's variables for a rejection message.
func (g *traceGroup) describe(b uint64) string {
	br := g.broker(b)
	leaders := make([]uint64, 0, len(g.leaders))
	for t := range g.leaders {
		leaders = append(leaders, t)
	}
	sort.Slice(leaders, func(i, j int) bool { return leaders[i] < leaders[j] })
	lead := ""
	for i := max(0, len(leaders)-3); i < len(leaders); i++ {
		lead += fmt.Sprintf(" term %d: broker %d;", leaders[i], g.leaders[leaders[i]])
	}
	return fmt.Sprintf("group %d, broker %d: up %t, in term %d, leads term %d, log 1..%d (last term %d), commit %d, applied %d, %v, finalized %t, %s; group committed 1..%d; last leaders:%s",
		g.id, b, br.up, br.term, br.leads, len(br.log), lastTermOf(br.log), br.commit, br.applied, br.conf, br.finalized, incarnationText(br.incarnation), len(g.committed), lead)
}
