package logstore

import (
	"bytes"
	"testing"

	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
	"pgregory.net/rapid"
)

// optU64 draws an absent field or a value across varint lengths.
func optU64(t *rapid.T, label string) *uint64 {
	if rapid.Bool().Draw(t, label+" absent") {
		return nil
	}
	return new(rapid.OneOf(rapid.Uint64Range(0, 300), rapid.Uint64()).Draw(t, label))
}

// withUnknown returns m re-read from its bytes plus an unknown field.
func withUnknown[M proto.Message](t *rapid.T, m M) {
	p, err := marshalOpts.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	p = append(p, 15<<3|0, 7) // field 15, varint 7: unknown to both messages
	if err := proto.Unmarshal(p, m); err != nil {
		t.Fatal(err)
	}
}

// drawRaftMessages draws an entry and a hard state: every presence
// combination, enum values raft does not know (negative too), nil, empty
// and full data, sometimes with unknown fields.
func drawRaftMessages(t *rapid.T) (*raftpb.Entry, *raftpb.HardState) {
	ent := &raftpb.Entry{Term: optU64(t, "term"), Index: optU64(t, "index"), Data: genBytes(t, "data")}
	if !rapid.Bool().Draw(t, "type absent") {
		ent.Type = raftpb.EntryType(rapid.Int32Range(-2, 5).Draw(t, "type")).Enum()
	}
	hs := &raftpb.HardState{Term: optU64(t, "hs term"), Vote: optU64(t, "vote"), Commit: optU64(t, "commit")}
	if rapid.Bool().Draw(t, "unknown fields") {
		withUnknown(t, ent)
		withUnknown(t, hs)
	}
	return ent, hs
}

// TestRaftCodecMatchesProto holds the hand-written entry and hard state
// encoders to proto's deterministic Marshal, byte for byte, for every
// presence combination, enum values raft does not know (negative too),
// nil, empty and full data, and messages carrying unknown fields.
func TestRaftCodecMatchesProto(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ent, hs := drawRaftMessages(t)
		if got, want := entrySize(ent), proto.Size(ent); got != want {
			t.Fatalf("entry %v: size %d, proto says %d", ent, got, want)
		}
		var got, want enc
		got.entry(ent)
		want.message(ent)
		if !bytes.Equal(got.b, want.b) {
			t.Fatalf("entry %v encodes as %x, proto says %x", ent, got.b, want.b)
		}
		got, want = enc{}, enc{}
		got.hardState(hs)
		want.message(hs)
		if !bytes.Equal(got.b, want.b) {
			t.Fatalf("hard state %v encodes as %x, proto says %x", hs, got.b, want.b)
		}
	})
}

// sameDecoded fails unless got and want (proto.Unmarshal's) are the same
// message: proto.Equal, the same bytes when marshalled again, and data
// nil exactly when proto's is.
func sameDecoded(t *rapid.T, what string, p []byte, got, want proto.Message) {
	gb, gerr := marshalOpts.Marshal(got)
	wb, werr := marshalOpts.Marshal(want)
	if !proto.Equal(got, want) || gerr != nil || werr != nil || !bytes.Equal(gb, wb) {
		t.Fatalf("%s %x decodes as %v, proto says %v", what, p, got, want)
	}
	if ge, ok := got.(*raftpb.Entry); ok && (ge.Data == nil) != (want.(*raftpb.Entry).Data == nil) {
		t.Fatalf("%s %x decodes with data nil %v, proto's nil %v", what, p, ge.Data == nil, want.(*raftpb.Entry).Data == nil)
	}
}

// TestRaftDecodeMatchesProto holds the hand-written entry and hard state
// decoders to proto.Unmarshal: on the bytes proto writes for random
// messages (every presence combination, enum values raft does not know,
// nil, empty and full data, unknown fields) and on random bytes, each
// either decodes as proto does or leaves the message to proto (and then
// proto's error, if any, is the decoder's).
func TestRaftDecodeMatchesProto(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ent, hs := drawRaftMessages(t)
		ep, _ := marshalOpts.Marshal(ent)
		hp, _ := marshalOpts.Marshal(hs)
		if rapid.Bool().Draw(t, "random bytes") {
			ep = rapid.SliceOfN(rapid.Byte(), 0, 24).Draw(t, "entry bytes")
			hp = rapid.SliceOfN(rapid.Byte(), 0, 24).Draw(t, "hard state bytes")
		}
		var got raftpb.Entry
		var sc entryScalars
		want := &raftpb.Entry{}
		werr := proto.Unmarshal(ep, want)
		if decodeKnownEntry(ep, &got, &sc) {
			if werr != nil {
				t.Fatalf("entry %x decodes by hand, proto refuses it: %v", ep, werr)
			}
			sameDecoded(t, "entry", ep, &got, want)
		}
		wantHS := &raftpb.HardState{}
		werr = proto.Unmarshal(hp, wantHS)
		if gotHS := decodeKnownHardState(hp); gotHS != nil {
			if werr != nil {
				t.Fatalf("hard state %x decodes by hand, proto refuses it: %v", hp, werr)
			}
			sameDecoded(t, "hard state", hp, gotHS, wantHS)
		}
	})
}

// TestRaftDecodeTakesWhatRaftWrites: every entry and hard state without
// unknown fields, with a type raft knows, decodes by hand (so the fast
// path is the one replays take).
func TestRaftDecodeTakesWhatRaftWrites(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ent := &raftpb.Entry{Term: optU64(t, "term"), Index: optU64(t, "index"), Data: genBytes(t, "data"),
			Type: raftpb.EntryType(rapid.Int32Range(0, 2).Draw(t, "type")).Enum()}
		hs := &raftpb.HardState{Term: optU64(t, "hs term"), Vote: optU64(t, "vote"), Commit: optU64(t, "commit")}
		ep, _ := marshalOpts.Marshal(ent)
		hp, _ := marshalOpts.Marshal(hs)
		var sc entryScalars
		if !decodeKnownEntry(ep, &raftpb.Entry{}, &sc) || decodeKnownHardState(hp) == nil {
			t.Fatalf("entry %x or hard state %x left to proto", ep, hp)
		}
	})
}
