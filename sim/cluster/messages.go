package cluster

import (
	"hash/fnv"

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
	b, err := wire.EncodeRequest(m.Req)
	if err != nil {
		return fnvBytes(nil) ^ m.Req.ID
	}
	return fnvBytes(b)
}

// AnswerMsg carries a broker's answer to a client. Its entries and values
// may share buffers with the broker's shard: receivers must not modify them.
type AnswerMsg struct{ Ans *wire.Answer }

// Digest hashes the answer's canonical wire encoding.
func (m *AnswerMsg) Digest() uint64 {
	b, err := wire.EncodeAnswer(m.Ans)
	if err != nil {
		return fnvBytes(nil) ^ m.Ans.ID
	}
	return fnvBytes(b)
}

func fnvBytes(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}
