package cluster

import (
	"hash/fnv"
	"testing"

	"pgregory.net/rapid"

	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/wire"
)

// TestFnvBytesIsFNV1a: the allocation-free hash gives hash/fnv's 64-bit
// FNV-1a for any bytes, so message digests (and trace hashes) are those
// of the canonical encoding hashed by the standard FNV-1a.
func TestFnvBytesIsFNV1a(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := rapid.SliceOf(rapid.Byte()).Draw(t, "b")
		h := fnv.New64a()
		h.Write(b)
		if got, want := fnvBytes(b), h.Sum64(); got != want {
			t.Fatalf("fnvBytes(%x) = %016x, hash/fnv gives %016x", b, got, want)
		}
	})
}

// TestMessageDigestsAreOfTheEncoding: a request's and an answer's digest
// is the FNV-1a of its canonical encoding, whatever the pooled scratch
// buffer held before (a long message digested first, then a short one).
func TestMessageDigestsAreOfTheEncoding(t *testing.T) {
	scope := statemachine.Scope{Tenant: "t", Namespace: "orders", Stream: "order-events", Shard: 1}
	long := &wire.Request{ID: 7, Scope: scope, Body: &wire.Publish{Record: statemachine.Record{Event: statemachine.EventPublish, Payload: make([]byte, 300)}}}
	short := &wire.Request{ID: 8, Scope: scope, Body: &wire.StateGet{Key: "k"}}
	for _, q := range []*wire.Request{long, short, long} {
		enc, err := wire.EncodeRequest(q)
		if err != nil {
			t.Fatal(err)
		}
		h := fnv.New64a()
		h.Write(enc)
		if got := (&RequestMsg{Req: q}).Digest(); got != h.Sum64() {
			t.Fatalf("request %d digests %016x, its encoding %016x", q.ID, got, h.Sum64())
		}
	}
	for _, a := range []*wire.Answer{{ID: 1, Body: &wire.StateValue{Found: true, Value: make([]byte, 200), Version: 3}}, {ID: 2, Body: &wire.Written{Offset: 9}}} {
		enc, err := wire.EncodeAnswer(a)
		if err != nil {
			t.Fatal(err)
		}
		h := fnv.New64a()
		h.Write(enc)
		if got := (&AnswerMsg{Ans: a}).Digest(); got != h.Sum64() {
			t.Fatalf("answer %d digests %016x, its encoding %016x", a.ID, got, h.Sum64())
		}
	}
}
