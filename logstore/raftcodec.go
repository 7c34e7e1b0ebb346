package logstore

import (
	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Hand-written encoders for the two raft messages every Commit writes, byte
// for byte what proto's deterministic Marshal writes (fields in number
// order, each only when present); a message carrying unknown fields takes
// proto's path. TestRaftCodecMatchesProto holds them to proto's bytes.
//
// Hand-written decoders for the same two, for every transaction a replay
// or a follower reads: a message holding only the fields raft writes, each
// with its own wire type, decodes without proto's reflection and with its
// scalar fields in one allocation; anything else (an unknown field, another
// wire type, an entry type raft does not define) takes proto.Unmarshal. TestRaftDecodeMatchesProto holds them to
// proto.Unmarshal on random messages and random bytes.

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

// entryScalars holds a decoded entry's scalar fields, which its pointer
// fields point at.
type entryScalars struct {
	term, index uint64
	typ         raftpb.EntryType
}

// decodeKnownEntry decodes p into e (zero) as proto.Unmarshal does, its
// scalars kept in sc, and reports true; false when p holds anything but
// raft's four fields with their wire types and an entry type raft defines
// (e is then to be reset and decoded by proto.Unmarshal).
func decodeKnownEntry(p []byte, e *raftpb.Entry, sc *entryScalars) bool {
	for len(p) > 0 {
		num, typ, n := protowire.ConsumeTag(p)
		if n < 0 {
			return false
		}
		p = p[n:]
		if num == 4 && typ == protowire.BytesType {
			v, n := protowire.ConsumeBytes(p)
			if n < 0 {
				return false
			}
			e.Data, p = append([]byte{}, v...), p[n:] // present and empty is non-nil, as proto's
			continue
		}
		if typ != protowire.VarintType {
			return false
		}
		v, n := protowire.ConsumeVarint(p)
		if n < 0 {
			return false
		}
		p = p[n:]
		switch num {
		case 1:
			if v > uint64(raftpb.EntryType_EntryConfChangeV2) {
				return false
			}
			sc.typ, e.Type = raftpb.EntryType(v), &sc.typ
		case 2:
			sc.term, e.Term = v, &sc.term
		case 3:
			sc.index, e.Index = v, &sc.index
		default:
			return false
		}
	}
	return true
}

// hardStateScalars is a decoded hard state with its scalar fields, which
// it points at, in one allocation.
type hardStateScalars struct {
	hs                 raftpb.HardState
	term, vote, commit uint64
}

// decodeKnownHardState decodes p as proto.Unmarshal does and returns the
// hard state, or nil when p holds anything but raft's three fields as
// varints (to be decoded by proto.Unmarshal).
func decodeKnownHardState(p []byte) *raftpb.HardState {
	h := &hardStateScalars{}
	for len(p) > 0 {
		num, typ, n := protowire.ConsumeTag(p)
		if n < 0 || typ != protowire.VarintType {
			return nil
		}
		v, m := protowire.ConsumeVarint(p[n:])
		if m < 0 {
			return nil
		}
		p = p[n+m:]
		switch num {
		case 1:
			h.term, h.hs.Term = v, &h.term
		case 2:
			h.vote, h.hs.Vote = v, &h.vote
		case 3:
			h.commit, h.hs.Commit = v, &h.commit
		default:
			return nil
		}
	}
	return &h.hs
}
