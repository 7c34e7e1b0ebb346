package properties

import "fmt"

// HistoryAnswer is what a broker answered one request of a write, as the
// client took it; the zero value is invalid. The error answers are the
// wire's error codes, spelled as docs/atomic-commit.md names them.
type HistoryAnswer uint8

// History answers.
const (
	historyAnswerInvalid HistoryAnswer = iota
	// AnswerUnrecorded: the history does not say (one written before
	// answers were recorded); a check leaves the request unjudged.
	AnswerUnrecorded
	// AnswerNone: no answer to this request reached the client before
	// its call ended or moved on (lost, late, or the call timed out).
	AnswerNone
	// AnswerWritten: the broker said the write landed (at the op's Offset).
	AnswerWritten
	// AnswerRefused: a conditional write refused with the true tail.
	AnswerRefused
	// AnswerAcked: an ephemeral stream's publish, handed to the live
	// subscribers and written nowhere.
	AnswerAcked
	// AnswerMismatch: an answer that does not fit a write, or failed the
	// wire's validation; it says nothing.
	AnswerMismatch
	AnswerNotLeader
	AnswerNotOnOwningShard
	AnswerEphemeralStream
	AnswerFeatureNotFinalized
	AnswerBeforeWindow
	AnswerInvalidRequest
	AnswerUnknownStream
	AnswerUnavailable
	AnswerTimeout
	AnswerInternal
	AnswerAdminRefused
	// AnswerEntries: a read's records (a live read's drained queue).
	AnswerEntries
	// AnswerDeliveries: a group fetch's records, handed out under a lease.
	AnswerDeliveries
	historyAnswerEnd
)

var historyAnswerNames = [...]string{"invalid", "unrecorded", "none", "written", "refused", "acked", "mismatch",
	"NotLeader", "NotOnOwningShard", "EphemeralStream", "FeatureNotFinalized", "BeforeWindow", "InvalidRequest",
	"UnknownStream", "Unavailable", "Timeout", "Internal", "AdminRefused", "entries", "deliveries"}

// String names the answer as the history encoding spells it.
func (a HistoryAnswer) String() string {
	if a < historyAnswerEnd {
		return historyAnswerNames[a]
	}
	return fmt.Sprintf("HistoryAnswer(%d)", uint8(a))
}

// ParseHistoryAnswer reads an answer's name (an error answer by its
// wire code's name, e.g. "NotLeader").
func ParseHistoryAnswer(s string) (HistoryAnswer, error) {
	for a := AnswerUnrecorded; a < historyAnswerEnd; a++ {
		if historyAnswerNames[a] == s {
			return a, nil
		}
	}
	return historyAnswerInvalid, fmt.Errorf("history answer %q refused: unknown", s)
}

// Valid reports whether a is one of the answers.
func (a HistoryAnswer) Valid() bool { return a > historyAnswerInvalid && a < historyAnswerEnd }

// NotProposed reports whether the answer promises that the broker did not
// propose the copy of the request it answered: NotLeader ("this copy was
// not written": the broker does not lead, so it proposes nothing) and
// Unavailable ("this copy of a write was not proposed"), by the table of
// error codes in docs/atomic-commit.md, stated here apart from the
// broker that makes the promise.
func (a HistoryAnswer) NotProposed() bool { return a == AnswerNotLeader || a == AnswerUnavailable }

// WroteNothing reports whether the answer promises that the copy it
// answered wrote no record: a refusal ("nothing was written"), an
// ephemeral publish, and every error but Timeout and Internal (whose
// write's outcome is unknown): the order of refusals in
// docs/atomic-commit.md says none of them writes anything.
func (a HistoryAnswer) WroteNothing() bool {
	switch a {
	case historyAnswerInvalid, AnswerUnrecorded, AnswerNone, AnswerWritten, AnswerMismatch, AnswerTimeout, AnswerInternal,
		AnswerEntries, AnswerDeliveries:
		return false
	}
	return a < historyAnswerEnd
}

// HistoryAnswerOfWire is the history's answer for an answer named as the
// wire spells it (client.Attempt.AnswerName): an error code's or answer
// kind's name, "none" or "mismatch". A kind the history has no name for
// (a state value) is a mismatch.
func HistoryAnswerOfWire(name string) HistoryAnswer {
	a, err := ParseHistoryAnswer(name)
	if err != nil || a == AnswerUnrecorded {
		return AnswerMismatch
	}
	return a
}
