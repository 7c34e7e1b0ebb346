package node

// notePromotion tells the host (Config.OnLeader) that this node has just
// become group g's leader, with its term.
func (n *Node) notePromotion(g *raftGroup) {
	if n.cfg.OnLeader != nil {
		n.cfg.OnLeader(g.id, g.rn.BasicStatus().GetTerm())
	}
}
