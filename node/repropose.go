package node

// ReproposeAfterTicks is how long the ReproposePending defect waits for a
// pending write to apply before it proposes the write again.
const ReproposeAfterTicks = 5

// reproposal is a pending write as the ReproposePending defect keeps it:
// the command's encoding, proposed again at most once.
type reproposal struct {
	data []byte
	done bool
}

// reproposePending is the ReproposePending defect: every pending record
// write this node proposed ReproposeAfterTicks or more ticks ago, whose
// group it still leads, is proposed again, once, with the same command.
// Whichever copy applies first answers the client; the other lands too.
// Like the other defects' silent proposals (proposeSilently), the second
// proposal is not in the abstract trace: traced, it is a second Propose of
// one request's command, which the model refuses wherever the trace is
// validated.
func (n *Node) reproposePending() {
	for _, seq := range n.writes.order {
		w, ok := n.writes.bySeq[seq]
		if !ok || w.again == nil || w.again.done || n.ticks-w.arrivedTick < ReproposeAfterTicks {
			continue
		}
		g := n.raftGroup(w.group)
		if !g.isLeader {
			continue
		}
		w.again.done = true
		_ = n.raftPropose(g, w.again.data) // a dropped proposal is the original's fate too
	}
}
