package wire

import (
	"bytes"
	"errors"
	"testing"

	"pgregory.net/rapid"
)

// roundTrip checks decode(encode(v)) == v, that re-encoding the decoded value
// gives the same bytes (canonical), and that every truncation, one extra
// byte and every single-bit flip of the encoding is refused with ErrMalformed.
func roundTrip[T any](t *rapid.T, v T, enc func(*T) ([]byte, error), dec func([]byte) (T, error)) {
	b, err := enc(&v)
	if err != nil {
		t.Fatalf("encoding a valid value: %v", err)
	}
	got, err := dec(b)
	if err != nil {
		t.Fatalf("decoding %x: %v", b, err)
	}
	if !sameValue(v, got) {
		t.Fatalf("round trip changed the value:\n sent %#v\n got  %#v", v, got)
	}
	again, err := enc(&got)
	if err != nil || !bytes.Equal(again, b) {
		t.Fatalf("re-encoding is not canonical (err %v):\n first  %x\n second %x", err, b, again)
	}
	cut := rapid.IntRange(0, len(b)-1).Draw(t, "cut")
	if _, err := dec(b[:cut]); !errors.Is(err, ErrMalformed) {
		t.Fatalf("truncation to %d of %d bytes: got %v, want ErrMalformed", cut, len(b), err)
	}
	if _, err := dec(append(append([]byte(nil), b...), 0)); !errors.Is(err, ErrMalformed) {
		t.Fatalf("one trailing byte: got %v, want ErrMalformed", err)
	}
	bit := rapid.IntRange(0, len(b)*8-1).Draw(t, "bit")
	flipped := append([]byte(nil), b...)
	flipped[bit/8] ^= 1 << (bit % 8)
	if _, err := dec(flipped); !errors.Is(err, ErrMalformed) {
		t.Fatalf("bit %d flipped: got %v, want ErrMalformed", bit, err)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		roundTrip(t, genAnyRecord().Draw(t, "record"), EncodeRecord, DecodeRecord)
	})
}

func TestRecordFrameLenIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genAnyRecord().Draw(t, "record")
		b, err := EncodeRecord(&r)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != RecordFrameLen(&r) {
			t.Fatalf("RecordFrameLen says %d, encoding is %d bytes", RecordFrameLen(&r), len(b))
		}
	})
}

func TestRequestFrameLenIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		q := genRequest().Draw(t, "request")
		b, err := EncodeRequest(&q)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != RequestFrameLen(&q) {
			t.Fatalf("RequestFrameLen says %d, encoding is %d bytes", RequestFrameLen(&q), len(b))
		}
	})
}

func TestRequestRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		roundTrip(t, genRequest().Draw(t, "request"), EncodeRequest, DecodeRequest)
	})
}

func TestAnswerRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		roundTrip(t, genAnswer().Draw(t, "answer"), EncodeAnswer, DecodeAnswer)
	})
}

// TestFrameKindsDoNotCross: a valid frame of one kind is refused by the
// decoders of the others, so a record can never be mistaken for a message.
func TestFrameKindsDoNotCross(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genAnyRecord().Draw(t, "record")
		rb, _ := EncodeRecord(&r)
		q := genRequest().Draw(t, "request")
		qb, _ := EncodeRequest(&q)
		a := genAnswer().Draw(t, "answer")
		ab, _ := EncodeAnswer(&a)
		for _, c := range []struct {
			name string
			err  error
		}{
			{"record as request", errOf(DecodeRequest(rb))},
			{"record as answer", errOf(DecodeAnswer(rb))},
			{"request as record", errOf(DecodeRecord(qb))},
			{"request as answer", errOf(DecodeAnswer(qb))},
			{"answer as record", errOf(DecodeRecord(ab))},
			{"answer as request", errOf(DecodeRequest(ab))},
		} {
			if !errors.Is(c.err, ErrMalformed) {
				t.Fatalf("%s: got %v, want ErrMalformed", c.name, c.err)
			}
		}
	})
}

func errOf[T any](_ T, err error) error { return err }

// TestDigestFollowsContent: equal messages digest equally and a changed
// request id changes the digest.
func TestDigestFollowsContent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		q := genRequest().Draw(t, "request")
		b, _ := EncodeRequest(&q)
		q2, err := DecodeRequest(b)
		if err != nil {
			t.Fatal(err)
		}
		if q.Digest() != q2.Digest() || q.Digest() == 0 {
			t.Fatalf("digests %x and %x of equal requests", q.Digest(), q2.Digest())
		}
		q2.ID++
		if q.Digest() == q2.Digest() {
			t.Fatalf("digest %x ignores the request id", q.Digest())
		}
		a := genAnswer().Draw(t, "answer")
		if a.Digest() == 0 {
			t.Fatal("a valid answer digests to 0")
		}
	})
	if (&Answer{}).Digest() != 0 {
		t.Fatal("an unencodable answer must digest to 0")
	}
}
