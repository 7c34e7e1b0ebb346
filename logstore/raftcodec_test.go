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

// TestRaftCodecMatchesProto holds the hand-written entry and hard state
// encoders to proto's deterministic Marshal, byte for byte, for every
// presence combination, enum values raft does not know (negative too),
// nil, empty and full data, and messages carrying unknown fields.
func TestRaftCodecMatchesProto(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ent := &raftpb.Entry{Term: optU64(t, "term"), Index: optU64(t, "index"), Data: genBytes(t, "data")}
		if !rapid.Bool().Draw(t, "type absent") {
			ent.Type = raftpb.EntryType(rapid.Int32Range(-2, 5).Draw(t, "type")).Enum()
		}
		hs := &raftpb.HardState{Term: optU64(t, "hs term"), Vote: optU64(t, "vote"), Commit: optU64(t, "commit")}
		if rapid.Bool().Draw(t, "unknown fields") {
			withUnknown(t, ent)
			withUnknown(t, hs)
		}
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
