package node

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"go.etcd.io/raft/v3/raftpb"
	"pgregory.net/rapid"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
)

func genCommand(t *rapid.T) command {
	kind := cmdKind(rapid.IntRange(int(cmdWrite), int(cmdKindEnd)-1).Draw(t, "kind"))
	name := rapid.StringMatching(`[a-z]{1,8}`)
	c := command{kind: kind, proposer: rapid.Uint64().Draw(t, "proposer"), incarnation: rapid.Uint64().Draw(t, "inc"), seq: rapid.Uint64().Draw(t, "seq")}
	if kind == cmdWrite || kind == cmdFetch || kind == cmdAck || kind == cmdRetain || kind == cmdOutboxTrim {
		c.scope = felix.Scope{Tenant: name.Draw(t, "tenant"), Namespace: name.Draw(t, "ns"), Stream: name.Draw(t, "stream"), Shard: rapid.Uint32().Draw(t, "shard")}
	}
	switch kind {
	case cmdWrite:
		c.record = felix.Record{Event: felix.EventPublish, Payload: []byte(name.Draw(t, "payload"))}
		if rapid.Bool().Draw(t, "op") {
			c.record.Ops = []felix.StateOp{{Kind: felix.OpPut, Key: name.Draw(t, "key"), Value: []byte(name.Draw(t, "value"))}}
		}
		if rapid.Bool().Draw(t, "later generation") {
			c.generation = rapid.Uint32Range(2, GenerationsMax).Draw(t, "accepted in")
		}
	case cmdFetch:
		c.group, c.nowNs, c.leaseNs, c.entriesMax = name.Draw(t, "group"), rapid.Int64().Draw(t, "now"), rapid.Int64().Draw(t, "lease"), rapid.Uint32().Draw(t, "max")
	case cmdAck:
		c.group, c.offset = name.Draw(t, "group"), rapid.Uint64().Draw(t, "offset")
	case cmdRetain:
		c.offset = rapid.Uint64().Draw(t, "offset")
	case cmdOutboxTrim:
		c.offset = rapid.Uint64().Draw(t, "through")
	case cmdSetVersion:
		c.node, c.version = rapid.Uint64().Draw(t, "node"), rapid.Uint32().Draw(t, "version")
	case cmdFinalize:
		c.feature = name.Draw(t, "feature")
	case cmdStreamAdmin:
		c.scope = felix.Scope{Namespace: name.Draw(t, "ns"), Stream: name.Draw(t, "stream")}
		c.generation, c.deleted = rapid.Uint32().Draw(t, "generation"), rapid.Bool().Draw(t, "deleted")
	case cmdIncarnation:
		c.generation, c.deleted = rapid.Uint32().Draw(t, "generation"), rapid.Bool().Draw(t, "deleted")
	}
	return c
}

// TestCommandRoundTrip: decode(encode(c)) == c, and re-encoding gives the
// same bytes (one encoding per command).
func TestCommandRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCommand(t)
		b, err := encodeCommand(&c)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != commandLen(&c) || cap(b) != len(b) {
			t.Fatalf("encoded %d bytes in a buffer of %d, commandLen says %d", len(b), cap(b), commandLen(&c))
		}
		d, err := decodeCommand(b)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		b2, err := encodeCommand(&d)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("re-encoding differs (%v)", err)
		}
		if d.kind != c.kind || d.seq != c.seq || d.scope != c.scope || d.group != c.group || d.feature != c.feature || d.offset != c.offset ||
			d.generation != c.generation || d.deleted != c.deleted {
			t.Fatalf("decoded %+v, want %+v", d, c)
		}
	})
}

// TestCommandDecodeRefuses: every truncation and a flipped magic, kind or
// trailing byte is refused with ErrMalformed.
func TestCommandDecodeRefuses(t *testing.T) {
	c := command{kind: cmdWrite, proposer: 1, incarnation: 2, seq: 3, scope: felix.Scope{Tenant: "a", Namespace: "b", Stream: "c"},
		record: felix.Record{Event: felix.EventEnqueue, Payload: []byte("p"), Ops: []felix.StateOp{{Kind: felix.OpDelete, Key: "k"}}}}
	b, err := encodeCommand(&c)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(b); n++ {
		if _, err := decodeCommand(b[:n]); !errors.Is(err, ErrMalformed) {
			t.Fatalf("truncation to %d bytes: err %v", n, err)
		}
	}
	gen1 := binary.LittleEndian.AppendUint32(append([]byte(nil), b...), 1) // the first generation is encoded by its absence
	for _, bad := range [][]byte{append([]byte{0}, b[1:]...), append([]byte{b[0], 99}, b[2:]...), append(append([]byte(nil), b...), 0), gen1} {
		if _, err := decodeCommand(bad); !errors.Is(err, ErrMalformed) {
			t.Fatalf("corrupted command decoded: err %v", err)
		}
	}
}

// FuzzDecodeCommand: any bytes give an error or a command that re-encodes
// to the same bytes; never a panic.
func FuzzDecodeCommand(f *testing.F) {
	for _, c := range []command{
		{kind: cmdWrite, proposer: 1, scope: felix.Scope{Tenant: "t", Namespace: "n", Stream: "s"}, record: felix.Record{Event: felix.EventPublish}},
		{kind: cmdFetch, scope: felix.Scope{Tenant: "t", Namespace: "n", Stream: "s"}, group: "g", leaseNs: 5, entriesMax: 3},
		{kind: cmdAck, scope: felix.Scope{Tenant: "t", Namespace: "n", Stream: "s"}, group: "g", offset: 9},
		{kind: cmdSetVersion, node: 2, version: 3},
		{kind: cmdFinalize, feature: FeatureAtomicCommit},
		{kind: cmdStreamAdmin, scope: felix.Scope{Namespace: "n", Stream: "s"}, deleted: true},
		{kind: cmdIncarnation, generation: 2},
	} {
		b, err := encodeCommand(&c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeCommand(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		b2, err := encodeCommand(&c)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("decoded command re-encodes differently (%v)", err)
		}
		shared, err := decodeCommandSharing(b, fuzzKnown)
		if err != nil || !reflect.DeepEqual(shared, c) {
			t.Fatalf("decoding with shared names gives %+v (%v), without %+v", shared, err, c)
		}
	})
}

// fuzzKnown are names the fuzz seeds use, so sharing is exercised.
var fuzzKnown = knownNames{tenants: []string{"a", "t", "tt"}, namespace: "n", stream: "s"}

// TestDecodeSharesKnownNames: a decoded scope equal to known names uses
// their memory (the point of sharing), and an unknown tenant is copied
// out of the entry, never aliasing it.
func TestDecodeSharesKnownNames(t *testing.T) {
	c := command{kind: cmdAck, scope: felix.Scope{Tenant: "t", Namespace: "n", Stream: "s"}, group: "g", offset: 9}
	b, err := encodeCommand(&c)
	require.NoError(t, err)
	got, err := decodeCommandSharing(b, fuzzKnown)
	require.NoError(t, err)
	require.Equal(t, c, got)
	require.True(t, unsafe.StringData(got.scope.Tenant) == unsafe.StringData(fuzzKnown.tenants[1]), "tenant not shared")
	require.True(t, unsafe.StringData(got.scope.Namespace) == unsafe.StringData(fuzzKnown.namespace), "namespace not shared")
	require.True(t, unsafe.StringData(got.scope.Stream) == unsafe.StringData(fuzzKnown.stream), "stream not shared")

	other, err := decodeCommandSharing(b, knownNames{tenants: []string{"x"}})
	require.NoError(t, err)
	require.Equal(t, c, other)
	p := unsafe.StringData(other.scope.Tenant)
	inEntry := uintptr(unsafe.Pointer(p)) >= uintptr(unsafe.Pointer(&b[0])) && uintptr(unsafe.Pointer(p)) < uintptr(unsafe.Pointer(&b[0]))+uintptr(len(b))
	require.False(t, inEntry, "an unknown tenant aliases the entry's bytes")
}

// FuzzDecodeMetadata: any bytes give an error or metadata that re-encodes
// to the same bytes; never a panic.
func FuzzDecodeMetadata(f *testing.F) {
	m := newMetadata(&Bootstrap{Streams: []StreamSpec{{Namespace: "n", Stream: "s", Shards: 2, Kind: statemachine.StreamQuorum,
		RetainedLenMax: 8, ReplayWindowLenMax: 8, GroupsMax: 2, LeasesPerGroupMax: 2}}, FinalizedFeatures: []string{FeatureAtomicCommit}, SoftwareVersion: 2}, []uint64{1, 2, 3})
	f.Add(encodeMetadata(m))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeMetadata(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if b2 := encodeMetadata(m); !bytes.Equal(b, b2) {
			t.Fatal("decoded metadata re-encodes differently")
		}
	})
}

// TestPeerBatchDigest: equal batches digest equally, a clone digests like
// its original, and changing any field changes the digest.
func TestPeerBatchDigest(t *testing.T) {
	mk := func(data string, index uint64) *PeerBatch {
		return &PeerBatch{From: 1, Msgs: []GroupMessage{{Group: 2, Msg: &raftpb.Message{
			Type: raftpb.MessageType_MsgApp.Enum(), To: new(uint64(2)), From: new(uint64(1)), Index: new(index),
			Entries: []*raftpb.Entry{{Index: new(index + 1), Term: new(uint64(3)), Data: []byte(data)}}}}}}
	}
	a := mk("0123456789", 5)
	if a.Digest() != mk("0123456789", 5).Digest() || a.Digest() != a.Clone().Digest() {
		t.Fatal("equal batches digest differently")
	}
	for _, b := range []*PeerBatch{mk("0123456788", 5), mk("012345678", 5), mk("0123456789", 6), {From: 1}} {
		if b.Digest() == a.Digest() {
			t.Fatalf("different batch %v digests like %v", b, a)
		}
	}
}
