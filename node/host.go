package node

import "github.com/felixsim/felixsim/wire"

// Host is the world as a node sees it. A simulator implements it with
// virtual time and a simulated network; a real deployment would use a
// clock and sockets. Sends must not call back into the node.
type Host interface {
	// NowNs reads the node's own clock (which may be skewed or jump).
	NowNs() int64
	// SendPeer hands a batch of raft messages to the network for broker to.
	// The node does not touch the batch afterwards.
	SendPeer(to uint64, b *PeerBatch)
	// SendAnswer hands an answer to the network for client endpoint to.
	SendAnswer(to uint64, a *wire.Answer)
}
