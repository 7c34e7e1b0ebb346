package wire

import (
	"errors"
	"fmt"

	"github.com/felixsim/felixsim/felix"
)

// AnswerKind names what a broker answered.
type AnswerKind uint8

// Answer kinds, as written on the wire. The zero value is invalid.
const (
	AnswerInvalid AnswerKind = iota
	AnswerWritten
	AnswerRefused
	AnswerStateValue
	AnswerEntries
	AnswerDeliveries
	AnswerAcked
	AnswerError
)

// String names the answer kind.
func (k AnswerKind) String() string {
	switch k {
	case AnswerWritten:
		return "written"
	case AnswerRefused:
		return "refused"
	case AnswerStateValue:
		return "state_value"
	case AnswerEntries:
		return "entries"
	case AnswerDeliveries:
		return "deliveries"
	case AnswerAcked:
		return "acked"
	case AnswerError:
		return "error"
	}
	return fmt.Sprintf("AnswerKind(%d)", uint8(k))
}

// MessageLenMax is the longest error message an answer carries, in bytes.
const MessageLenMax = 1024

// Answer is one broker→client message, echoing the request's id.
type Answer struct {
	ID uint64
	// Body is one of *Written, *Refused, *StateValue, *Entries, *Deliveries,
	// *Acked, *Error.
	Body AnswerBody
}

// AnswerBody is what an Answer carries.
type AnswerBody interface {
	// Kind is the wire tag of the answer.
	Kind() AnswerKind
}

// Written says the write landed at Offset.
type Written struct{ Offset uint64 }

// Refused says a conditional write was refused, nothing written, and the shard's next offset is Tail.
type Refused struct{ Tail uint64 }

// StateValue answers a state_get: Found with Value at Version (the offset that wrote it), or absent.
type StateValue struct {
	Found   bool
	Value   []byte
	Version uint64
}

// Entries answers a subscribe read with committed entries in ascending offset order; empty means caught up.
type Entries struct{ Entries []felix.Entry }

// Deliveries answers a group fetch with entries handed out as work, leased until LeaseExpiryNs (broker clock).
type Deliveries struct {
	Entries       []felix.Entry
	LeaseExpiryNs uint64
}

// Acked confirms a group ack.
type Acked struct{}

// Error says the broker refused or failed the request.
type Error struct {
	Code    ErrorCode
	Message string
	// LeaderHint is the node believed to lead the shard; set only with
	// CodeNotLeader, 0 when unknown.
	LeaderHint uint64
	// WindowStart is the first readable offset; set only with CodeBeforeWindow.
	WindowStart uint64
}

// Error renders the code, message and any hint.
func (e *Error) Error() string {
	s := e.Code.String()
	if e.Message != "" {
		s += ": " + e.Message
	}
	switch e.Code {
	case CodeNotLeader:
		s += fmt.Sprintf(" (leader hint %d)", e.LeaderHint)
	case CodeBeforeWindow:
		s += fmt.Sprintf(" (window starts at %d)", e.WindowStart)
	}
	return s
}

// Kind is AnswerWritten.
func (*Written) Kind() AnswerKind { return AnswerWritten }

// Kind is AnswerRefused.
func (*Refused) Kind() AnswerKind { return AnswerRefused }

// Kind is AnswerStateValue.
func (*StateValue) Kind() AnswerKind { return AnswerStateValue }

// Kind is AnswerEntries.
func (*Entries) Kind() AnswerKind { return AnswerEntries }

// Kind is AnswerDeliveries.
func (*Deliveries) Kind() AnswerKind { return AnswerDeliveries }

// Kind is AnswerAcked.
func (*Acked) Kind() AnswerKind { return AnswerAcked }

// Kind is AnswerError.
func (*Error) Kind() AnswerKind { return AnswerError }

// Validate checks the answer the way both the encoder and the decoder do.
func (a *Answer) Validate() error {
	switch b := a.Body.(type) {
	case nil:
		return errors.New("answer has no body")
	case *Written, *Refused, *Acked:
		return nil
	case *StateValue:
		if !b.Found && (len(b.Value) != 0 || b.Version != 0) {
			return fmt.Errorf("state_value answer: absent key carries a %d-byte value and version %d", len(b.Value), b.Version)
		}
		if len(b.Value) > felix.ValueLenMax {
			return fmt.Errorf("state_value answer: value of %d bytes exceeds %d", len(b.Value), felix.ValueLenMax)
		}
	case *Entries:
		return checkEntries("entries", b.Entries)
	case *Deliveries:
		return checkEntries("deliveries", b.Entries)
	case *Error:
		return checkError(b)
	default:
		return fmt.Errorf("answer body %T is not a wire answer", a.Body)
	}
	return nil
}

func checkEntries(what string, es []felix.Entry) error {
	if len(es) > ReadEntriesMax {
		return fmt.Errorf("%s answer: %d entries exceed %d", what, len(es), ReadEntriesMax)
	}
	for i := range es {
		if i > 0 && es[i].Offset <= es[i-1].Offset {
			return fmt.Errorf("%s answer: entry %d at offset %d does not follow offset %d", what, i, es[i].Offset, es[i-1].Offset)
		}
		if err := checkRecord(&es[i].Record); err != nil {
			return fmt.Errorf("%s answer: entry %d at offset %d: %w", what, i, es[i].Offset, err)
		}
	}
	return nil
}

func checkError(e *Error) error {
	if !e.Code.Valid() {
		return fmt.Errorf("error answer: unknown error code %d", e.Code)
	}
	if len(e.Message) > MessageLenMax {
		return fmt.Errorf("error answer: message of %d bytes exceeds %d", len(e.Message), MessageLenMax)
	}
	if e.Code != CodeNotLeader && e.LeaderHint != 0 {
		return fmt.Errorf("error answer: %s carries leader hint %d; only NotLeader may", e.Code, e.LeaderHint)
	}
	if e.Code != CodeBeforeWindow && e.WindowStart != 0 {
		return fmt.Errorf("error answer: %s carries window start %d; only BeforeWindow may", e.Code, e.WindowStart)
	}
	return nil
}
