package cluster

import (
	"encoding/binary"
	"sync"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/simapi"
	"github.com/felixsim/felixsim/wire"
)

// PeerMsg is a node.PeerBatch travelling between brokers as a pointer: no
// marshalling and no wrapper to allocate (a *node.PeerBatch converts to a
// *PeerMsg for free); a duplicated delivery gets a deep clone.
type PeerMsg node.PeerBatch

// Batch is the node.PeerBatch the message is.
func (m *PeerMsg) Batch() *node.PeerBatch { return (*node.PeerBatch)(m) }

// Digest is the batch's field-getter digest.
func (m *PeerMsg) Digest() uint64 { return m.Batch().Digest() }

// Clone deep-copies the batch, for duplicated deliveries.
func (m *PeerMsg) Clone() simapi.Message { return (*PeerMsg)(m.Batch().Clone()) }

// RequestMsg carries a client request to a broker. A sender must not
// modify the request after sending it; brokers only read it.
type RequestMsg struct{ Req *wire.Request }

// Digest hashes the request's canonical wire encoding (an unencodable
// request digests as its id alone).
func (m *RequestMsg) Digest() uint64 {
	buf := digestBufs.Get().(*[]byte)
	defer digestBufs.Put(buf)
	b, err := wire.AppendRequest((*buf)[:0], m.Req)
	*buf = b[:0]
	if err != nil {
		return hashBytes(nil) ^ m.Req.ID
	}
	return hashBytes(b)
}

// AdminMsg carries an operator request to a broker; senders must not
// modify it after sending.
type AdminMsg struct{ Req *node.AdminRequest }

// Digest hashes the request's fields.
func (m *AdminMsg) Digest() uint64 {
	b := binary.LittleEndian.AppendUint64(nil, m.Req.ID)
	b = append(b, byte(m.Req.Kind))
	b = append(b, m.Req.Feature...)
	return hashBytes(b)
}

// AnswerMsg carries a broker's answer to a client. Its entries and values
// may share buffers with the broker's shard: receivers must not modify them.
type AnswerMsg struct{ Ans *wire.Answer }

// Digest hashes the answer's canonical wire encoding.
func (m *AnswerMsg) Digest() uint64 {
	buf := digestBufs.Get().(*[]byte)
	defer digestBufs.Put(buf)
	b, err := wire.AppendAnswer((*buf)[:0], m.Ans)
	*buf = b[:0]
	if err != nil {
		return hashBytes(nil) ^ m.Ans.ID
	}
	return hashBytes(b)
}

// digestBufs are scratch buffers for encoding a message to digest it (a
// pool, since worlds may run on several goroutines at once); a buffer
// keeps its capacity, so digesting allocates nothing once warm. What a
// buffer held never reaches a digest: each use encodes from length 0.
var digestBufs = sync.Pool{New: func() any { return new([]byte) }}

// hashBytes is a 64-bit digest of b folded a word at a time (length
// first, then each 8-byte word and the zero-padded tail, each mixed by a
// multiply and a shift): one multiply per 8 bytes where FNV-1a needs one
// per byte, as request and answer digests hash every payload on every
// delivery. It is a digest for detecting divergence, not a keyed hash.
func hashBytes(b []byte) uint64 {
	h := uint64(hashInit)
	mix := func(v uint64) {
		h = (h ^ v) * hashMul
		h ^= h >> 29
	}
	mix(uint64(len(b)))
	for len(b) >= 8 {
		mix(binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	var tail uint64
	for i, c := range b {
		tail |= uint64(c) << (8 * i)
	}
	mix(tail)
	return h
}

const (
	hashInit = 0x6a09e667f3bcc909
	hashMul  = 0x9e3779b97f4a7c15
)
