package wire

import (
	"bytes"
	"errors"
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// The fuzz targets hold every decoder to one rule: any input either decodes
// to a value that re-encodes to exactly the input bytes, or is refused with
// ErrMalformed. A panic, a different re-encoding or another error fails.
// Interesting inputs found by `go test -fuzz` are kept in testdata/fuzz.

func seedFrames() [][]byte {
	rec := felix.Record{Event: felix.EventEnqueue, Payload: []byte(`{"type":"placed","id":42}`), Ops: []felix.StateOp{
		{Kind: felix.OpPut, Key: "order-42", Value: []byte(`{"status":"placed"}`)},
		{Kind: felix.OpDelete, Key: "cart-42"},
	}}
	cond := rec
	cond.Conditional, cond.ExpectedOffset = true, 17
	scope := felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "order-events", Shard: 3}
	var out [][]byte
	for _, r := range []felix.Record{rec, cond} {
		b, _ := EncodeRecord(&r)
		out = append(out, b)
	}
	for _, body := range []RequestBody{&Commit{Record: rec}, &CommitIf{Record: cond}, &StateGet{Key: "order-42"},
		&SubscribeRead{FromOffset: 5, MaxEntries: 10}, &GroupFetch{Group: "fulfilment", MaxEntries: 2, LeaseNs: 1e9}, &GroupAck{Group: "fulfilment", Offset: 5}} {
		b, _ := EncodeRequest(&Request{ID: 7, Scope: scope, Body: body})
		out = append(out, b)
	}
	for _, body := range []AnswerBody{&Written{Offset: 17}, &Refused{Tail: 18}, &StateValue{Found: true, Value: []byte("v"), Version: 17},
		&Entries{Entries: []felix.Entry{{Offset: 17, Record: rec}}}, &Deliveries{Entries: []felix.Entry{{Offset: 17, Record: rec}}, LeaseExpiryNs: 5},
		&Acked{}, &Error{Code: CodeNotLeader, LeaderHint: 2, Message: "not leader"}} {
		b, _ := EncodeAnswer(&Answer{ID: 7, Body: body})
		out = append(out, b)
	}
	return out
}

func fuzzDecoder[T any](f *testing.F, dec func([]byte) (T, error), enc func(*T) ([]byte, error)) {
	for _, b := range seedFrames() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := dec(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("refusal does not wrap ErrMalformed: %v", err)
			}
			return
		}
		again, err := enc(&v)
		if err != nil {
			t.Fatalf("decoded value does not re-encode: %v\n value %#v", err, v)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("decoded value re-encodes differently:\n input %x\n again %x", b, again)
		}
	})
}

func FuzzDecodeRecord(f *testing.F)  { fuzzDecoder(f, DecodeRecord, EncodeRecord) }
func FuzzDecodeRequest(f *testing.F) { fuzzDecoder(f, DecodeRequest, EncodeRequest) }
func FuzzDecodeAnswer(f *testing.F)  { fuzzDecoder(f, DecodeAnswer, EncodeAnswer) }

// FuzzDecodeBody skips the checksum: it seals arbitrary bytes as a body of
// each frame kind, so the fuzzer explores the body parsers directly instead
// of spending its time failing CRC checks.
func FuzzDecodeBody(f *testing.F) {
	for _, b := range seedFrames() {
		f.Add(b[3], b[FrameHeaderLen:len(b)-FrameTrailerLen])
	}
	f.Fuzz(func(t *testing.T, kind byte, body []byte) {
		b := frameOf(FrameKind(kind%3+1), body)
		var err error
		var again []byte
		switch FrameKind(kind%3 + 1) {
		case FrameRecord:
			var v felix.Record
			if v, err = DecodeRecord(b); err == nil {
				again, err = EncodeRecord(&v)
			}
		case FrameRequest:
			var v Request
			if v, err = DecodeRequest(b); err == nil {
				again, err = EncodeRequest(&v)
			}
		case FrameAnswer:
			var v Answer
			if v, err = DecodeAnswer(b); err == nil {
				again, err = EncodeAnswer(&v)
			}
		}
		if err != nil {
			if again == nil && errors.Is(err, ErrMalformed) {
				return
			}
			t.Fatalf("unexpected error: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("re-encodes differently:\n input %x\n again %x", b, again)
		}
	})
}

// FuzzFrameLen: a header either is refused or gives a length a stream
// reader can safely allocate.
func FuzzFrameLen(f *testing.F) {
	for _, b := range seedFrames() {
		f.Add(b[:FrameHeaderLen])
	}
	f.Fuzz(func(t *testing.T, header []byte) {
		n, err := FrameLen(header)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("refusal does not wrap ErrMalformed: %v", err)
			}
			return
		}
		if n < FrameOverheadLen || n > FrameOverheadLen+FrameBodyLenMax {
			t.Fatalf("FrameLen gave %d, outside [%d, %d]", n, FrameOverheadLen, FrameOverheadLen+FrameBodyLenMax)
		}
	})
}
