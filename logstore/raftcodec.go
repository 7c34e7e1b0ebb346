package logstore

import (
	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// Hand-written encoders for the two raft messages every Commit writes, byte
// for byte what proto's deterministic Marshal writes (fields in number
// order, each only when present); a message carrying unknown fields takes
// proto's path. Decoding stays with proto.Unmarshal. TestRaftCodecMatchesProto
// holds them to proto's bytes.

// Wire tags: field number << 3 | wire type (0 varint, 2 length-delimited).
const (
	tagEntryType  = 1<<3 | 0
	tagEntryTerm  = 2<<3 | 0
	tagEntryIndex = 3<<3 | 0
	tagEntryData  = 4<<3 | 2
	tagHardTerm   = 1<<3 | 0
	tagHardVote   = 2<<3 | 0
	tagHardCommit = 3<<3 | 0
)

// entrySize is proto.Size(ent), by hand for an entry without unknown
// fields (the one raft.Storage's Entries sums for every entry it returns).
func entrySize(ent *raftpb.Entry) int {
	if len(ent.ProtoReflect().GetUnknown()) > 0 {
		return proto.Size(ent)
	}
	return knownEntrySize(ent)
}

// knownEntrySize is the encoded size of ent's known fields.
func knownEntrySize(ent *raftpb.Entry) int {
	n := 0
	if ent.Type != nil {
		n += 1 + uvarintLen(uint64(int64(*ent.Type)))
	}
	if ent.Term != nil {
		n += 1 + uvarintLen(*ent.Term)
	}
	if ent.Index != nil {
		n += 1 + uvarintLen(*ent.Index)
	}
	if ent.Data != nil {
		n += 1 + uvarintLen(uint64(len(ent.Data))) + len(ent.Data)
	}
	return n
}

// entry appends ent as a length-prefixed message.
func (e *enc) entry(ent *raftpb.Entry) {
	if len(ent.ProtoReflect().GetUnknown()) > 0 {
		e.message(ent)
		return
	}
	e.uvar(uint64(knownEntrySize(ent)))
	if ent.Type != nil {
		e.u8(tagEntryType)
		e.uvar(uint64(int64(*ent.Type)))
	}
	if ent.Term != nil {
		e.u8(tagEntryTerm)
		e.uvar(*ent.Term)
	}
	if ent.Index != nil {
		e.u8(tagEntryIndex)
		e.uvar(*ent.Index)
	}
	if ent.Data != nil {
		e.u8(tagEntryData)
		e.bytes(ent.Data)
	}
}

// hardState appends hs as a length-prefixed message.
func (e *enc) hardState(hs *raftpb.HardState) {
	if len(hs.ProtoReflect().GetUnknown()) > 0 {
		e.message(hs)
		return
	}
	n := 0
	for _, f := range [3]*uint64{hs.Term, hs.Vote, hs.Commit} {
		if f != nil {
			n += 1 + uvarintLen(*f)
		}
	}
	e.uvar(uint64(n))
	for i, f := range [3]*uint64{hs.Term, hs.Vote, hs.Commit} {
		if f != nil {
			e.u8([3]uint8{tagHardTerm, tagHardVote, tagHardCommit}[i])
			e.uvar(*f)
		}
	}
}
