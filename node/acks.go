package node

import "go.etcd.io/raft/v3/raftpb"

// AppendAck is one append a node acknowledged in a durable round: what
// raft elsewhere (a leader counting its quorum) now relies on this node's
// store to keep. A follower's is a MsgAppResp it is about to send; a
// leader's is its own append of new entries, which raft counts for the
// leader without a message.
type AppendAck struct {
	// Group is the raft group; To is the leader told (the node itself
	// for a leader's own append).
	Group, To uint64
	// Term is the term the acknowledgement was made in; Index the last
	// index it says the node's log holds as the leader's log does (for a
	// rejection, the index of the append it refused).
	Term, Index uint64
	// Reject marks a refused append (the logs differ at Index); HintIndex
	// and HintTerm are then the follower's guess of where they agree.
	Reject              bool
	HintIndex, HintTerm uint64
}

// appendAcks appends to dst the acknowledgements of one group's durable
// Ready: each MsgAppResp among its messages and, when node leads and the
// Ready appended entries, the leader's own append of them.
func appendAcks(dst []AppendAck, node uint64, gr *groupReady) []AppendAck {
	if ents := gr.rd.Entries; gr.g.isLeader && len(ents) > 0 {
		last := ents[len(ents)-1]
		dst = append(dst, AppendAck{Group: gr.g.id, To: node, Term: last.GetTerm(), Index: last.GetIndex()})
	}
	for _, m := range gr.rd.Messages {
		if m.GetType() != raftpb.MessageType_MsgAppResp {
			continue
		}
		dst = append(dst, AppendAck{Group: gr.g.id, To: m.GetTo(), Term: m.GetTerm(), Index: m.GetIndex(),
			Reject: m.GetReject(), HintIndex: m.GetRejectHint(), HintTerm: m.GetLogTerm()})
	}
	return dst
}
