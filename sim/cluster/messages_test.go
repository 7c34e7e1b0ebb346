package cluster

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/wire"
)

// TestHashBytesSeparates: equal bytes hash equally, and bytes that differ
// (in any byte, or only in length, such as a trailing zero the padded
// tail word would otherwise hide) hash differently.
func TestHashBytesSeparates(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SliceOf(rapid.Byte()).Draw(t, "a")
		if hashBytes(a) != hashBytes(append([]byte(nil), a...)) {
			t.Fatalf("equal bytes %x hash differently", a)
		}
		padded := append(append([]byte(nil), a...), 0)
		if hashBytes(a) == hashBytes(padded) {
			t.Fatalf("%x and %x (one zero longer) collide", a, padded)
		}
		if len(a) > 0 {
			i := rapid.IntRange(0, len(a)-1).Draw(t, "i")
			flipped := append([]byte(nil), a...)
			flipped[i] ^= byte(rapid.IntRange(1, 255).Draw(t, "flip"))
			if hashBytes(a) == hashBytes(flipped) {
				t.Fatalf("%x and %x (byte %d changed) collide", a, flipped, i)
			}
		}
		b := rapid.SliceOf(rapid.Byte()).Draw(t, "b")
		if !bytes.Equal(a, b) && hashBytes(a) == hashBytes(b) {
			t.Fatalf("%x and %x collide", a, b)
		}
	})
}

// TestMessageDigestsAreOfTheEncoding: a request's and an answer's digest
// is the hash of its canonical encoding, whatever the pooled scratch
// buffer held before (a long message digested first, then a short one).
func TestMessageDigestsAreOfTheEncoding(t *testing.T) {
	scope := felix.Scope{Tenant: "t", Namespace: "orders", Stream: "order-events", Shard: 1}
	long := &wire.Request{ID: 7, Scope: scope, Body: &wire.Publish{Record: felix.Record{Event: felix.EventPublish, Payload: make([]byte, 300)}}}
	short := &wire.Request{ID: 8, Scope: scope, Body: &wire.StateGet{Key: "k"}}
	for _, q := range []*wire.Request{long, short, long} {
		enc, err := wire.EncodeRequest(q)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := (&RequestMsg{Req: q}).Digest(), hashBytes(enc); got != want {
			t.Fatalf("request %d digests %016x, its encoding %016x", q.ID, got, want)
		}
	}
	for _, a := range []*wire.Answer{{ID: 1, Body: &wire.StateValue{Found: true, Value: make([]byte, 200), Version: 3}}, {ID: 2, Body: &wire.Written{Offset: 9}}} {
		enc, err := wire.EncodeAnswer(a)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := (&AnswerMsg{Ans: a}).Digest(), hashBytes(enc); got != want {
			t.Fatalf("answer %d digests %016x, its encoding %016x", a.ID, got, want)
		}
	}
}
