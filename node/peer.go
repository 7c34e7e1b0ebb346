package node

import (
	"encoding/binary"
	"fmt"

	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// PeerMsgsMax caps the raft messages one PeerBatch may carry; a cycle that
// produces more for one destination sends several batches.
const PeerMsgsMax = 1024

// GroupMessage is one raft message of one raft group.
type GroupMessage struct {
	// Group is the raft group id (MetaGroup for the metadata group).
	Group uint64
	// Msg is the raft message; receivers must not modify it.
	Msg *raftpb.Message
}

// PeerBatch is what one broker sends another in one processing cycle: the
// raft messages of every group, in the order raft produced them. Inside a
// simulator it travels as a pointer; a duplicate is delivered as a Clone.
type PeerBatch struct {
	// From is the sending broker's node id.
	From uint64
	// Msgs are the raft messages, at most PeerMsgsMax.
	Msgs []GroupMessage
}

// Clone returns a deep copy, for delivering a duplicated batch.
func (b *PeerBatch) Clone() *PeerBatch {
	out := &PeerBatch{From: b.From, Msgs: make([]GroupMessage, len(b.Msgs))}
	for i, m := range b.Msgs {
		out.Msgs[i] = GroupMessage{Group: m.Group, Msg: proto.Clone(m.Msg).(*raftpb.Message)}
	}
	return out
}

// Digest is a stable 64-bit digest of the batch for trace hashing, built
// from field getters (never from protobuf text output, whose spacing varies
// between builds).
func (b *PeerBatch) Digest() uint64 {
	h := newDigest()
	h.u64(b.From)
	h.u64(uint64(len(b.Msgs)))
	for _, gm := range b.Msgs {
		h.u64(gm.Group)
		digestMessage(&h, gm.Msg)
	}
	return h.sum
}

// String summarises the batch for traces and test failures.
func (b *PeerBatch) String() string {
	return fmt.Sprintf("PeerBatch{from %d, %d msgs, digest %016x}", b.From, len(b.Msgs), b.Digest())
}

func digestMessage(h *digest, m *raftpb.Message) {
	h.u64(uint64(m.GetType()))
	h.u64(m.GetTo())
	h.u64(m.GetFrom())
	h.u64(m.GetTerm())
	h.u64(m.GetLogTerm())
	h.u64(m.GetIndex())
	h.u64(m.GetCommit())
	h.u64(m.GetVote())
	h.boolean(m.GetReject())
	h.u64(m.GetRejectHint())
	h.bytes(m.GetContext())
	h.u64(uint64(len(m.GetEntries())))
	for _, e := range m.GetEntries() {
		h.u64(e.GetTerm())
		h.u64(e.GetIndex())
		h.u64(uint64(e.GetType()))
		h.bytes(e.GetData())
	}
	if s := m.GetSnapshot(); s != nil {
		md := s.GetMetadata()
		h.u64(md.GetIndex())
		h.u64(md.GetTerm())
		h.u64s(md.GetConfState().GetVoters())
		h.bytes(s.GetData())
	}
}

// digest folds 64-bit words with a multiply-xorshift mixer: one multiply
// per field instead of FNV's one per byte (batches are digested for every
// delivery, so this is on the simulator's hot path).
type digest struct{ sum uint64 }

const (
	digestInit = 0x6a09e667f3bcc909
	digestMul  = 0x9e3779b97f4a7c15
)

func newDigest() digest { return digest{sum: digestInit} }

func (h *digest) u64(v uint64) {
	h.sum = (h.sum ^ v) * digestMul
	h.sum ^= h.sum >> 29
}

func (h *digest) boolean(v bool) {
	if v {
		h.u64(1)
		return
	}
	h.u64(0)
}

func (h *digest) bytes(p []byte) {
	h.u64(uint64(len(p)))
	for len(p) >= 8 {
		h.u64(binary.LittleEndian.Uint64(p))
		p = p[8:]
	}
	var tail uint64
	for i, c := range p {
		tail |= uint64(c) << (8 * i)
	}
	h.u64(tail)
}

func (h *digest) u64s(vs []uint64) {
	h.u64(uint64(len(vs)))
	for _, v := range vs {
		h.u64(v)
	}
}
