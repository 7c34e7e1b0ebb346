package modeltrace

import "fmt"

// Kind is what a step did. The zero value is invalid.
type Kind uint8

// Step kinds, in the order the model's actions are named.
const (
	kindInvalid Kind = iota
	// Restart: a broker (re)started from its store; the model's Crash, then
	// the hidden steps that rebuild its applied state from the stored log.
	Restart
	// Vote: a broker persisted its vote for Candidate in Term.
	Vote
	// Promote: a broker became leader of Term.
	Promote
	// Request: a leader turned a client's commit into a proposal (Asked is
	// what the client sent, Proposed what the leader proposed).
	Request
	// Persist: a broker's stored raft log now holds Entries from Index on,
	// any older suffix from Index dropped; the leader's own new entries are
	// the model's Propose, a follower's the model's Replicate. Term is the
	// broker's raft term when it took them: its own as their leader, else
	// that of the leader whose append it took last.
	Persist
	// Commit: a broker's commit mark moved to Index (AdvanceCommit on the
	// leader; learned from the leader's message on a follower).
	Commit
	// Apply: a broker applied the entry at Index (term Term, data Digest):
	// Outcome says what it wrote (Error the error's code when it refused
	// it with one); First is the entry's scope's first retained offset
	// after it.
	Apply
	// Answer: a broker answered a client's request.
	Answer
	// Snapshot: a broker installed a leader's snapshot at Index (term
	// Term): its log becomes the committed prefix up to Index, applied
	// there; Scopes are its scopes' next offsets after the install.
	Snapshot
	// ProposeConf: a leader appended a membership change (Change) to its
	// log as an entry of data Digest; a Persist of that entry follows.
	ProposeConf
	// ApplyConf: a broker applied the membership change at Index (term
	// Term, data Digest): its configuration is now Voters and Learners
	// (unchanged when the change was refused and skipped).
	ApplyConf
	// StateRead: a broker served a state_get of Key in scope Tenant (the
	// request of Client and ReqID) from its applied state at index
	// Applied, once that reached the read's ReadIndex: Found, the value's
	// Digest and its version (Offset); First is the scope's first retained
	// offset.
	StateRead
	// SubscriberRead: a broker served a subscriber the records of scope
	// Tenant from Offset on (Records: each record's digest, as Write.Digest covers a record) from its
	// applied state at index Applied; First as StateRead's.
	SubscriberRead
	// ReadStart: a broker began a linearizable state read of Key in scope
	// Tenant (the request of Client and ReqID): it asked raft for a read
	// index; the read's StateRead follows once that index is applied.
	ReadStart
	kindEnd
)

var kindNames = [...]string{"invalid", "Restart", "Vote", "Promote", "Request", "Persist", "Commit", "Apply", "Answer", "Snapshot", "ProposeConf", "ApplyConf", "StateRead", "SubscriberRead", "ReadStart"}

// String names the kind.
func (k Kind) String() string {
	if k < kindEnd {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ParseKind reads a kind's name.
func ParseKind(s string) (Kind, error) {
	for k := Restart; k < kindEnd; k++ {
		if kindNames[k] == s {
			return k, nil
		}
	}
	return kindInvalid, fmt.Errorf("step kind %q refused: unknown", s)
}

// Outcome is what applying an entry (or an answer) says about its record.
type Outcome uint8

// Outcomes. OutcomeNone is a step with no record: an empty entry, a
// consumer-group command, or an answer that is not a write's.
const (
	OutcomeNone Outcome = iota
	// OutcomeWritten: the record was written at Offset.
	OutcomeWritten
	// OutcomeRefused: a conditional record was refused; Offset is the tail.
	OutcomeRefused
	// OutcomeError: the write was refused with an error; nothing written.
	OutcomeError
	outcomeEnd
)

var outcomeNames = [...]string{"none", "written", "refused", "error"}

// String names the outcome.
func (o Outcome) String() string {
	if o < outcomeEnd {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// CommitKind is the kind of a client's request that goes through raft.
type CommitKind uint8

// Commit kinds. The zero value is invalid.
const (
	commitKindInvalid CommitKind = iota
	KindPublish
	KindPublishIf
	KindEnqueue
	KindCommit
	KindCommitIf
	// KindFetch and KindAck are consumer-group commands, KindOutboxTrim
	// the outbox relay's; KindOperator was a broker's own command in
	// formats before v3, which named no more; KindRetain (drop a scope's
	// records below Write.Retain), KindFeature (a fleet feature's marker,
	// Write.Feature) and KindIncarnation (a stream's generation marker,
	// Write.Generation and Write.Deleted) are a broker's own since. None
	// writes a record.
	KindFetch
	KindAck
	KindOutboxTrim
	KindOperator
	KindRetain
	KindFeature
	KindIncarnation
	commitKindEnd
)

var commitKindNames = [...]string{"invalid", "publish", "publish_if", "enqueue", "commit", "commit_if", "fetch", "ack", "outbox_trim", "operator", "retain", "feature", "incarnation"}

// String names the commit kind as the wire does.
func (k CommitKind) String() string {
	if k < commitKindEnd {
		return commitKindNames[k]
	}
	return fmt.Sprintf("CommitKind(%d)", uint8(k))
}

// Writes reports whether the kind writes a record.
func (k CommitKind) Writes() bool { return k >= KindPublish && k <= KindCommitIf }

// Reads reports whether the kind is a read the model's readers make.
func (k Kind) Reads() bool { return k == StateRead || k == SubscriberRead }

// Entry is one raft log entry as the model sees it: its term and a digest
// of its data (0 for an empty entry).
type Entry struct {
	Term   uint64 `json:"term"`
	Digest uint64 `json:"digest"`
}

// Write is a client's write (or consumer-group command) as the model's commit
// table holds it.
type Write struct {
	// Tenant names the scope within the shard.
	Tenant string     `json:"tenant"`
	Kind   CommitKind `json:"kind"`
	// Conditional and Expected: a commit_if/publish_if expects the scope's
	// next offset (project numbering, from 0) to be Expected.
	Conditional bool   `json:"conditional,omitempty"`
	Expected    uint64 `json:"expected,omitempty"`
	// Ops counts its state operations; Digest covers its event, payload
	// and ops (a record's digest: a SubscriberRead names records by it). StateOps are the operations as the model's commit
	// table holds them (Ops[c]): each key, put or delete, and the put
	// value's Digest.
	Ops      int       `json:"ops,omitempty"`
	Digest   uint64    `json:"digest,omitempty"`
	StateOps []StateOp `json:"state_ops,omitempty"`
	// Retain is a KindRetain's offset: drop the scope's records below it
	// (no further than its consumer groups' committed positions).
	Retain uint64 `json:"retain,omitempty"`
	// Feature is a KindFeature's fleet feature (the group finalizes it).
	Feature string `json:"feature,omitempty"`
	// Generation and Deleted are a KindIncarnation's stream incarnation.
	Generation uint32 `json:"generation,omitempty"`
	Deleted    bool   `json:"deleted,omitempty"`
}

// StateOp is one state operation of a write: a put of a value (its
// Digest) or a delete of Key.
type StateOp struct {
	Key    string `json:"key"`
	Delete bool   `json:"delete,omitempty"`
	Value  uint64 `json:"value,omitempty"`
}

// Equal reports whether two writes are the same, operations included.
func (c *Write) Equal(o *Write) bool {
	if c == nil || o == nil {
		return c == o
	}
	if c.Tenant != o.Tenant || c.Kind != o.Kind || c.Conditional != o.Conditional || c.Expected != o.Expected ||
		c.Ops != o.Ops || c.Digest != o.Digest || len(c.StateOps) != len(o.StateOps) ||
		c.Retain != o.Retain || c.Feature != o.Feature || c.Generation != o.Generation || c.Deleted != o.Deleted {
		return false
	}
	for i := range c.StateOps {
		if c.StateOps[i] != o.StateOps[i] {
			return false
		}
	}
	return true
}

// Clone returns a copy of c that shares no memory with it (nil for nil).
func (c *Write) Clone() *Write {
	if c == nil {
		return nil
	}
	w := *c
	w.StateOps = append([]StateOp(nil), c.StateOps...)
	return &w
}

// ScopeNext is one scope's next offset and first retained offset
// (project numbering).
type ScopeNext struct {
	Tenant string `json:"tenant"`
	Next   uint64 `json:"next"`
	First  uint64 `json:"first,omitempty"`
}

// ChangeType is what a simple membership change does to one identity.
// The zero value is invalid.
type ChangeType uint8

// Change types, as raft's ConfChangeSingle types.
const (
	changeInvalid ChangeType = iota
	// AddVoter makes the identity a voter (a learner promoted, or new).
	AddVoter
	// AddLearner makes it a learner (a new identity, or a voter demoted).
	AddLearner
	// Remove drops it from the configuration.
	Remove
	changeEnd
)

var changeNames = [...]string{"invalid", "add_voter", "add_learner", "remove"}

// String names the change type.
func (c ChangeType) String() string {
	if c < changeEnd {
		return changeNames[c]
	}
	return fmt.Sprintf("ChangeType(%d)", uint8(c))
}

// Valid reports whether c is one of the change types.
func (c ChangeType) Valid() bool { return c > changeInvalid && c < changeEnd }

// ParseChangeType reads a change type's name.
func ParseChangeType(s string) (ChangeType, error) {
	for c := AddVoter; c < changeEnd; c++ {
		if changeNames[c] == s {
			return c, nil
		}
	}
	return changeInvalid, fmt.Errorf("change type %q refused: unknown", s)
}

// ConfChange is one simple membership change: one identity's new role.
type ConfChange struct {
	Type ChangeType `json:"type"`
	Node uint64     `json:"node"`
}

// String renders the change, e.g. "add_learner 9".
func (c *ConfChange) String() string {
	if c == nil {
		return "none"
	}
	return fmt.Sprintf("%s %d", c.Type, c.Node)
}

// Step is one abstract step of one broker in one raft group. Which fields
// are set depends on Kind (see the kinds).
type Step struct {
	Kind   Kind   `json:"kind"`
	Broker uint64 `json:"broker"`
	Group  uint64 `json:"group"`
	// Term: Vote, Promote, Request and Persist's term; Apply's entry
	// term; Snapshot's term.
	Term uint64 `json:"term,omitempty"`
	// Index: Persist's and Restart's first entry (Restart's is the stored
	// snapshot's index); Commit's new mark; Apply's entry; Snapshot's index.
	Index uint64 `json:"index,omitempty"`
	// Entries: Persist's and Restart's log entries from Index on.
	Entries []Entry `json:"entries,omitempty"`
	// Candidate: Vote's candidate.
	Candidate uint64 `json:"candidate,omitempty"`
	// Digest: the proposal's data digest (Request, Apply); the value's
	// digest StateRead found (0 when not found).
	Digest uint64 `json:"digest,omitempty"`
	// Client and ReqID name a client's request (Request, Answer,
	// ReadStart, StateRead).
	Client uint64 `json:"client,omitempty"`
	ReqID  uint64 `json:"req_id,omitempty"`
	// Asked and Proposed: Request's commit as sent and as proposed.
	Asked    *Write `json:"asked,omitempty"`
	Proposed *Write `json:"proposed,omitempty"`
	// Outcome and Offset: Apply's and Answer's record outcome; Offset is
	// the written offset or the refusal's tail (project numbering);
	// StateRead's version, SubscriberRead's first offset. Error is Apply's
	// error code (the wire's name) when Outcome is OutcomeError.
	Outcome Outcome `json:"outcome,omitempty"`
	Offset  uint64  `json:"offset,omitempty"`
	Error   string  `json:"error,omitempty"`
	// Commit and Applied: Restart's stored commit mark and applied index
	// (a read's applied index: the state it was served from);
	// Scopes its scopes' next offsets, sorted by tenant (Snapshot's too).
	CommitMark uint64      `json:"commit,omitempty"`
	Applied    uint64      `json:"applied,omitempty"`
	Scopes     []ScopeNext `json:"scopes,omitempty"`
	// RetainedMax and Finalized: Restart's constants of the group: the
	// most records a scope retains (0: no cap), and whether the group
	// booted with the atomic_commit feature finalized.
	RetainedMax uint64 `json:"retained_max,omitempty"`
	Finalized   bool   `json:"finalized,omitempty"`
	// Change: ProposeConf's membership change (nil: one the model has no
	// name for, such as a joint change).
	Change *ConfChange `json:"change,omitempty"`
	// Voters and Learners: ApplyConf's configuration after the change,
	// each ascending.
	Voters   []uint64 `json:"voters,omitempty"`
	Learners []uint64 `json:"learners,omitempty"`
	// Tenant names a read's scope; Key is StateRead's key and Found
	// whether it found one; First is the read scope's first retained
	// offset (retention drops records below it, and every key whose last
	// write they were; Apply's: after the apply); Records are
	// SubscriberRead's records from Offset on, each by its digest (as
	// Write.Digest); ReadIndex is StateRead's read index, the commit
	// index raft confirmed for it.
	Tenant    string   `json:"tenant,omitempty"`
	Key       string   `json:"key,omitempty"`
	Found     bool     `json:"found,omitempty"`
	First     uint64   `json:"first,omitempty"`
	Records   []uint64 `json:"records,omitempty"`
	ReadIndex uint64   `json:"read_index,omitempty"`
}

// Sink receives steps. The step and its slices belong to the caller and
// are valid only during the call: a sink copies what it keeps.
type Sink interface {
	Step(s *Step)
}

// String renders a step in one line for messages.
func (s *Step) String() string {
	head := fmt.Sprintf("%s broker %d group %d", s.Kind, s.Broker, s.Group)
	switch s.Kind {
	case Restart:
		return fmt.Sprintf("%s: stored log %d..%d, commit %d, applied %d, %d scopes%s", head, s.Index, s.Index+uint64(len(s.Entries))-1, s.CommitMark, s.Applied, len(s.Scopes), scopesText(s.Scopes))
	case Vote:
		return fmt.Sprintf("%s: term %d for %d", head, s.Term, s.Candidate)
	case Promote:
		return fmt.Sprintf("%s: term %d", head, s.Term)
	case Request:
		return fmt.Sprintf("%s: term %d, client %d request %d, proposal %016x, asked %v, proposed %v", head, s.Term, s.Client, s.ReqID, s.Digest, s.Asked, s.Proposed)
	case Persist:
		return fmt.Sprintf("%s: entries %d..%d (terms %s) in term %d", head, s.Index, s.Index+uint64(len(s.Entries))-1, termsOf(s.Entries), s.Term)
	case Commit:
		return fmt.Sprintf("%s: commit mark %d", head, s.Index)
	case Apply:
		cause := ""
		if s.Error != "" {
			cause = " (" + s.Error + ")"
		}
		return fmt.Sprintf("%s: entry %d (term %d, proposal %016x): %s%s at %d, first offset %d", head, s.Index, s.Term, s.Digest, s.Outcome, cause, s.Offset, s.First)
	case Answer:
		return fmt.Sprintf("%s: client %d request %d: %s at %d", head, s.Client, s.ReqID, s.Outcome, s.Offset)
	case Snapshot:
		return fmt.Sprintf("%s: index %d (term %d), %d scopes", head, s.Index, s.Term, len(s.Scopes))
	case ProposeConf:
		return fmt.Sprintf("%s: term %d, change %v, proposal %016x", head, s.Term, s.Change, s.Digest)
	case ApplyConf:
		return fmt.Sprintf("%s: entry %d (term %d, proposal %016x): voters %v learners %v", head, s.Index, s.Term, s.Digest, s.Voters, s.Learners)
	case StateRead:
		found := "absent"
		if s.Found {
			found = fmt.Sprintf("value %016x at version %d", s.Digest, s.Offset)
		}
		return fmt.Sprintf("%s: client %d request %d: scope %q key %q at applied index %d, read index %d (first offset %d): %s", head, s.Client, s.ReqID, s.Tenant, s.Key, s.Applied, s.ReadIndex, s.First, found)
	case SubscriberRead:
		return fmt.Sprintf("%s: scope %q at applied index %d (first offset %d): %d records from offset %d", head, s.Tenant, s.Applied, s.First, len(s.Records), s.Offset)
	case ReadStart:
		return fmt.Sprintf("%s: client %d request %d: scope %q key %q", head, s.Client, s.ReqID, s.Tenant, s.Key)
	}
	return head
}

// String renders a write.
func (c *Write) String() string {
	if c == nil {
		return "none"
	}
	cond := ""
	switch {
	case c.Conditional:
		cond = fmt.Sprintf(" if next=%d", c.Expected)
	case c.Kind == KindRetain:
		cond = fmt.Sprintf(" below %d", c.Retain)
	case c.Kind == KindFeature:
		cond = " " + c.Feature
	case c.Kind == KindIncarnation:
		cond = fmt.Sprintf(" generation %d deleted %t", c.Generation, c.Deleted)
	}
	return fmt.Sprintf("{%s %s%s, %d ops, %016x}", c.Tenant, c.Kind, cond, c.Ops, c.Digest)
}

// scopesText renders scopes' next and first offsets (at most 4).
func scopesText(sc []ScopeNext) string {
	out := ""
	for i, x := range sc {
		if i == 4 {
			return out + " …"
		}
		out += fmt.Sprintf(" %s %d..%d", x.Tenant, x.First, x.Next)
	}
	return out
}

// termsOf renders entries' terms compactly ("2,2,3"), at most 8 of them.
func termsOf(es []Entry) string {
	out := ""
	for i, e := range es {
		if i == 8 {
			return out + ",…"
		}
		if i > 0 {
			out += ","
		}
		out += fmt.Sprint(e.Term)
	}
	return out
}
