package wire

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
)

// entryLenMin is offset(8) + the smallest record body.
const entryLenMin = 8 + recordBodyLenMin

// EncodeAnswer returns the answer as an answer frame.
func EncodeAnswer(a *Answer) ([]byte, error) {
	return AppendAnswer(nil, a)
}

// AppendAnswer appends the answer as an answer frame to dst; on error dst is
// returned unchanged in length.
func AppendAnswer(dst []byte, a *Answer) ([]byte, error) {
	if err := a.Validate(); err != nil {
		return dst, fmt.Errorf("%w: %w", ErrUnencodable, err)
	}
	start := len(dst)
	dst, bodyStart := beginFrame(dst, FrameAnswer)
	dst = appendU64(dst, a.ID)
	dst = appendU8(dst, uint8(a.Body.Kind()))
	switch b := a.Body.(type) {
	case *Written:
		dst = appendU64(dst, b.Offset)
	case *Refused:
		dst = appendU64(dst, b.Tail)
	case *StateValue:
		dst = appendBool(dst, b.Found)
		dst = appendU64(dst, b.Version)
		dst = appendBytes(dst, b.Value)
	case *Entries:
		dst = appendEntries(dst, b.Entries)
	case *Deliveries:
		dst = appendU64(dst, b.LeaseExpiryNs)
		dst = appendEntries(dst, b.Entries)
	case *Acked:
	case *Error:
		dst = appendU8(dst, uint8(b.Code))
		dst = appendU64(dst, b.LeaderHint)
		dst = appendU64(dst, b.WindowStart)
		dst = appendString(dst, b.Message)
	}
	return finishFrame(dst, start, bodyStart)
}

func appendEntries(b []byte, es []felix.Entry) []byte {
	b = appendU32(b, uint32(len(es)))
	for i := range es {
		b = appendU64(b, es[i].Offset)
		b = appendRecordBody(b, &es[i].Record)
	}
	return b
}

func readEntries(r *reader, what string) []felix.Entry {
	n := r.count(what, ReadEntriesMax, entryLenMin)
	if r.err != nil || n == 0 {
		return nil
	}
	es := make([]felix.Entry, n)
	for i := range es {
		es[i].Offset = r.u64("entry offset")
		es[i].Record = readRecord(r)
		if r.err != nil {
			return nil
		}
	}
	return es
}

// DecodeAnswer decodes exactly one answer frame. Empty values and entry
// lists decode as nil.
func DecodeAnswer(b []byte) (Answer, error) {
	body, err := openFrame(b, FrameAnswer)
	if err != nil {
		return Answer{}, err
	}
	r := newReader(body)
	var a Answer
	a.ID = r.u64("answer id")
	a.Body = readAnswerBody(r, AnswerKind(r.u8("answer kind")))
	r.end("answer")
	if r.err == nil {
		if err := a.Validate(); err != nil {
			r.fail("decoded answer is invalid: %v", err)
		}
	}
	if r.err != nil {
		return Answer{}, r.err
	}
	return a, nil
}

func readAnswerBody(r *reader, kind AnswerKind) AnswerBody {
	if r.err != nil {
		return nil
	}
	switch kind {
	case AnswerWritten:
		return &Written{Offset: r.u64("written offset")}
	case AnswerRefused:
		return &Refused{Tail: r.u64("refused tail")}
	case AnswerStateValue:
		return &StateValue{
			Found:   r.boolean("state_value found flag"),
			Version: r.u64("state_value version"),
			Value:   r.bytesField("state_value value", felix.ValueLenMax),
		}
	case AnswerEntries:
		return &Entries{Entries: readEntries(r, "entries")}
	case AnswerDeliveries:
		return &Deliveries{LeaseExpiryNs: r.u64("deliveries lease expiry ns"), Entries: readEntries(r, "deliveries")}
	case AnswerAcked:
		return &Acked{}
	case AnswerError:
		e := &Error{Code: ErrorCode(r.u8("error code"))}
		if r.err == nil && !e.Code.Valid() {
			r.fail("unknown error code %d", e.Code)
		}
		e.LeaderHint = r.u64("error leader hint")
		e.WindowStart = r.u64("error window start")
		e.Message = r.stringField("error message", MessageLenMax)
		return e
	}
	r.fail("unknown answer kind %d", kind)
	return nil
}
