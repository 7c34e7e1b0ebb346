package node

import (
	"fmt"
	"slices"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
)

// outbound collects one processing cycle's raft messages per destination,
// so each peer gets one PeerBatch per cycle (or more if one exceeds
// PeerMsgsMax). It grows only within a cycle and is emptied by flush.
type outbound struct {
	peers []uint64
	msgs  [][]GroupMessage
	// bufs[i] is the batch being filled for peers[i] this cycle, allocated
	// together with room for its first messages (one allocation per batch).
	bufs []*batchBuf
	// snaps are MsgSnap sends to report to raft after the flush.
	snaps []GroupMessage
}

// outboundCapFirst is the capacity a peer's batch starts with in a cycle:
// enough for a typical cycle's messages (every group's heartbeat or append
// and a few more), so the slice the PeerBatch carries is rarely regrown.
const outboundCapFirst = 8

// batchBuf is a PeerBatch and its first messages' array in one allocation.
type batchBuf struct {
	batch PeerBatch
	first [outboundCapFirst]GroupMessage
}

// outboundPeersMax caps the destinations outbound tracks. Membership
// changes bring new raft ids; when one more arrives and the list is full,
// the destinations without messages this cycle are forgotten (and found
// again when raft next addresses them).
const outboundPeersMax = 4 * PeersMax

func newOutbound(peers []uint64) outbound {
	return outbound{peers: slices.Clone(peers), msgs: make([][]GroupMessage, len(peers)), bufs: make([]*batchBuf, len(peers))}
}

func (o *outbound) add(group uint64, msgs []*raftpb.Message) {
	for _, m := range msgs {
		i := o.index(m.GetTo())
		if i < 0 {
			continue // raft addressed no broker (id 0): nothing to send
		}
		if o.bufs[i] == nil {
			o.bufs[i] = &batchBuf{}
			o.msgs[i] = o.bufs[i].first[:0]
		}
		o.msgs[i] = append(o.msgs[i], GroupMessage{Group: group, Msg: m})
		if m.GetType() == raftpb.MessageType_MsgSnap {
			o.snaps = append(o.snaps, GroupMessage{Group: group, Msg: m})
		}
	}
}

// index is destination to's slot, added in ascending id order if new
// (flush sends in that order); -1 for id 0.
func (o *outbound) index(to uint64) int {
	i, found := slices.BinarySearch(o.peers, to)
	if found {
		return i
	}
	if to == 0 {
		return -1
	}
	if len(o.peers) >= outboundPeersMax {
		o.forgetIdle()
		i, _ = slices.BinarySearch(o.peers, to)
	}
	o.peers = slices.Insert(o.peers, i, to)
	o.msgs = slices.Insert(o.msgs, i, nil)
	o.bufs = slices.Insert(o.bufs, i, nil)
	if len(o.peers) > outboundPeersMax {
		panic(fmt.Sprintf("outbound: %d destinations with messages in one cycle, more than %d", len(o.peers), outboundPeersMax))
	}
	return i
}

// forgetIdle drops the destinations with no message this cycle.
func (o *outbound) forgetIdle() {
	k := 0
	for i := range o.peers {
		if len(o.msgs[i]) > 0 {
			o.peers[k], o.msgs[k], o.bufs[k] = o.peers[i], o.msgs[i], o.bufs[i]
			k++
		}
	}
	clear(o.msgs[k:])
	clear(o.bufs[k:])
	o.peers, o.msgs, o.bufs = o.peers[:k], o.msgs[:k], o.bufs[:k]
}

// flush sends every collected batch in peer order and then reports each
// MsgSnap as finished: raft then probes the follower, which answers for
// itself whether the snapshot arrived.
func (o *outbound) flush(n *Node) {
	for i, peer := range o.peers {
		for len(o.msgs[i]) > 0 {
			k := min(len(o.msgs[i]), PeerMsgsMax)
			var pb *PeerBatch
			if buf := o.bufs[i]; buf != nil {
				pb, o.bufs[i] = &buf.batch, nil
			} else {
				pb = new(PeerBatch) // a second batch of an overfull cycle
			}
			*pb = PeerBatch{From: n.cfg.ID, Msgs: o.msgs[i][:k:k]}
			n.host.SendPeer(peer, pb)
			o.msgs[i] = o.msgs[i][k:]
		}
		o.msgs[i], o.bufs[i] = nil, nil
	}
	for _, s := range o.snaps {
		if g := n.raftGroup(s.Group); g != nil {
			g.rn.ReportSnapshot(s.Msg.GetTo(), raft.SnapshotFinish)
			n.stats.SnapshotsSent++
			n.notePath(PathSnapshotSent)
		}
	}
	o.snaps = o.snaps[:0]
}
