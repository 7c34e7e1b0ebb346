package properties

import (
	"fmt"
	"slices"

	"github.com/felixsim/felixsim/felix"
)

// The client contract as one sequential model. ContractScope is one scope
// (a tenant's part of one stream shard) as a Felix client can observe it,
// written from the seeds and docs/atomic-commit.md alone, apart from the
// broker's state machine (an oracle must not be computed by the code it
// judges): every call a client makes applied in one order, and the answer
// the contract promises for it. It is pure and deterministic; the
// contract checks (contract_*.go) and the linearizability model
// (linearizable_model.go) judge histories by its rules, and a test in
// sim/runner holds the broker's state machine to it on random calls.
//
// What it states, section by section of docs/atomic-commit.md:
//   - writes (contract_model.go): commit, publish and enqueue append one
//     record at the next offset; commit_if and publish_if only when the
//     next offset is the expected one, else Refused with the tail and
//     nothing written; a refusal's order is shape, ephemeral, feature
//     gate, expected offset, then retention by count holding for a group
//     (Unavailable); a deleted stream refuses everything (UnknownStream).
//   - reads: state_get answers the last put of a key in the retained log
//     and its offset as version (absent after a delete or once retention
//     dropped the record); a subscribe read from before the window is
//     BeforeWindow with the window start, and an empty answer means the
//     reader is at the tail.
//   - retention (contract_model_retention.go): by count at the write that
//     overflows the window, by a retain command at its own log position,
//     never below the lowest committed group position; the state is the
//     fold of the retained log.
//   - consumer groups (contract_model_groups.go): the lease rule.
//   - the outbox (contract_model_outbox.go): rows [start, next), trimmed
//     only by the relay's confirmation, never by retention.
//   - generations and the feature gate (contract_model_generations.go):
//     a delete empties the scope at its marker, a create starts the next
//     generation at the tail; commits wait for atomic_commit.
//   - the ephemeral stream (contract_model_live.go): no log; publishes go
//     to the subscribers live then, a read drains its queue.

// ContractConfig is how one scope's stream is configured; build it by
// field name.
type ContractConfig struct {
	// Ephemeral marks an ephemeral stream (no log; see contract_model_live.go).
	Ephemeral bool
	// Finalized says atomic_commit is finalized: commits are accepted.
	Finalized bool
	// RetainedLenMax caps the retained records (0: no count limit).
	RetainedLenMax int
	// ReplayWindowLenMax caps the records a subscriber can read: the most
	// recent ones retained (0: every retained record).
	ReplayWindowLenMax int
	// LeasesPerGroupMax caps one group's leases (0: no cap).
	LeasesPerGroupMax int
}

// ContractWriteKind is the kind of a write request; the zero value is invalid.
type ContractWriteKind uint8

// Write request kinds, as the wire names them.
const (
	contractWriteInvalid ContractWriteKind = iota
	ContractPublish
	ContractPublishIf
	ContractEnqueue
	ContractCommit
	ContractCommitIf
)

var contractWriteKindNames = [...]string{"invalid", "publish", "publish_if", "enqueue", "commit", "commit_if"}

// String names the kind as the wire does.
func (k ContractWriteKind) String() string {
	if int(k) < len(contractWriteKindNames) {
		return contractWriteKindNames[k]
	}
	return fmt.Sprintf("ContractWriteKind(%d)", uint8(k))
}

// isCommit reports whether the kind is commit or commit_if: the requests
// the atomic_commit feature gates.
func (k ContractWriteKind) isCommit() bool { return k == ContractCommit || k == ContractCommitIf }

// ContractAnswer is the answer the contract promises for one call: its
// kind (a HistoryAnswer: written, refused, acked, entries, deliveries, or
// an error code) and the fields that kind carries.
type ContractAnswer struct {
	Answer HistoryAnswer
	// Offset is where a write landed; Tail a refusal's next offset;
	// WindowStart a BeforeWindow's first retained offset.
	Offset, Tail, WindowStart uint64
	// Found, Value and Version are a state_get's answer (Answer written
	// is not used for them: a state read answers AnswerEntries with no
	// entries and these fields).
	Found   bool
	Value   string
	Version uint64
	// Entries are a read's, a fetch's or an outbox read's records.
	Entries []ViewEntry
	// LeaseExpiryNs is a fetch's lease expiry.
	LeaseExpiryNs int64
}

// ContractScope is one scope's contract state. The zero value is not
// usable: build one with NewContractScope.
//
// Invariant: first <= next; log holds exactly the records at first..next-1.
// Invariant: outboxStart <= next; outbox holds the events at outboxStart..next-1.
type ContractScope struct {
	cfg ContractConfig
	// first and next bound the retained window; log is its records.
	first, next uint64
	log         []ViewEntry
	groups      []GroupView
	// outboxStart and outbox are the relay's rows (see contract_model_outbox.go).
	outboxStart uint64
	outbox      []ViewEntry
	// generation counts creations (1 at the start); deleted marks a
	// deleted generation.
	generation uint32
	deleted    bool
	// live is the ephemeral stream's subscribers (contract_model_live.go).
	live     []liveQueue
	liveNext uint64
}

// NewContractScope is an empty scope of a live stream, generation 1.
func NewContractScope(cfg ContractConfig) *ContractScope {
	return &ContractScope{cfg: cfg, generation: 1}
}

// Next is the scope's next offset: where the next write lands.
func (s *ContractScope) Next() uint64 { return s.next }

// First is the first retained offset.
func (s *ContractScope) First() uint64 { return s.first }

// Write applies a write request of kind carrying rec and returns the
// contract's answer, checking in the documented order (a shape the client
// would refuse before sending is not the model's: rec is valid).
func (s *ContractScope) Write(kind ContractWriteKind, rec *felix.Record) ContractAnswer {
	switch {
	case s.deleted:
		return ContractAnswer{Answer: AnswerUnknownStream}
	case s.cfg.Ephemeral && (kind != ContractPublish || len(rec.Ops) > 0):
		return ContractAnswer{Answer: AnswerEphemeralStream}
	case s.cfg.Ephemeral:
		s.livePublish(rec)
		return ContractAnswer{Answer: AnswerAcked}
	case kind.isCommit() && !s.cfg.Finalized:
		return ContractAnswer{Answer: AnswerFeatureNotFinalized}
	case conditionalRefused(rec.Conditional, rec.ExpectedOffset, s.next):
		return ContractAnswer{Answer: AnswerRefused, Tail: s.next}
	case !s.countRoom():
		return ContractAnswer{Answer: AnswerUnavailable}
	}
	off := s.next
	e := ViewEntryOf(off, rec)
	s.log = append(s.log, e)
	s.outbox = append(s.outbox, ViewEntry{Offset: off, HasEvent: e.HasEvent, Enqueue: e.Enqueue, Event: e.Event})
	s.next++
	s.retainByCount()
	return ContractAnswer{Answer: AnswerWritten, Offset: off}
}

// conditionalRefused is the conditional-write rule: a commit_if or
// publish_if expecting offset expected is refused when the shard's next
// offset is another (an unconditional write never is).
func conditionalRefused(conditional bool, expected, next uint64) bool {
	return conditional && expected != next
}

// StateGet answers a state read of key: the value of the last operation
// on it in the retained log and that record's offset as its version, or
// absent (after a delete, or none retained).
func (s *ContractScope) StateGet(key string) ContractAnswer {
	if a, refused := s.readRefusal(); refused {
		return a
	}
	for i := len(s.log) - 1; i >= 0; i-- {
		ops := s.log[i].Ops
		for j := len(ops) - 1; j >= 0; j-- {
			if ops[j].Key != key {
				continue
			}
			if ops[j].Delete {
				return ContractAnswer{Answer: AnswerEntries}
			}
			return ContractAnswer{Answer: AnswerEntries, Found: true, Value: ops[j].Value, Version: s.log[i].Offset}
		}
	}
	return ContractAnswer{Answer: AnswerEntries}
}

// Read answers a subscribe read of at most entriesMax records from offset
// from, "out of a bounded replay window of recent records": the records
// from there, BeforeWindow with the window start when from is below it
// ("never mistaken for an empty result"), and nothing at the tail ("an
// empty result means the reader is at the tail").
func (s *ContractScope) Read(from uint64, entriesMax int) ContractAnswer {
	if a, refused := s.readRefusal(); refused {
		return a
	}
	start := s.first
	if n := uint64(s.cfg.ReplayWindowLenMax); n > 0 && s.next-start > n {
		start = s.next - n
	}
	switch {
	case from < start:
		return ContractAnswer{Answer: AnswerBeforeWindow, WindowStart: start}
	case from > s.next:
		return ContractAnswer{Answer: AnswerInvalidRequest}
	}
	lo := int(from - s.first)
	hi := min(len(s.log), lo+entriesMax)
	return ContractAnswer{Answer: AnswerEntries, Entries: slices.Clone(s.log[lo:hi])}
}

// readRefusal is the refusal every log read meets (a deleted stream, an
// ephemeral one), if any.
func (s *ContractScope) readRefusal() (ContractAnswer, bool) {
	switch {
	case s.deleted:
		return ContractAnswer{Answer: AnswerUnknownStream}, true
	case s.cfg.Ephemeral:
		return ContractAnswer{Answer: AnswerEphemeralStream}, true
	}
	return ContractAnswer{}, false
}

// at is the retained record at offset off.
func (s *ContractScope) at(off uint64) *ViewEntry {
	if off < s.first || off >= s.next {
		panic(fmt.Sprintf("properties: contract model read offset %d outside the window %d..%d", off, s.first, s.next))
	}
	return &s.log[off-s.first]
}
