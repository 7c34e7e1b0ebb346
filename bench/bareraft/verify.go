package bareraft

import (
	"fmt"
)

// Verify checks that the harness did the work it claims: every proposal
// raft accepted was applied exactly once on every replica of its group,
// and nothing else was applied. Run leaves raft settled, so after Run
// nothing accepted is still in flight; proposals still waiting for a
// leader (Stats.Pending) were never accepted and are not judged.
func (h *Harness) Verify() error {
	for _, g := range h.groups {
		accepted := uint64(0)
		for _, ok := range g.proposed {
			if ok {
				accepted++
			}
		}
		for _, r := range g.replicas {
			if err := r.verify(accepted); err != nil {
				return err
			}
		}
	}
	return nil
}

// verify checks one replica against its group's accepted proposals.
func (r *replica) verify(accepted uint64) error {
	if r.twice >= 0 {
		return fmt.Errorf("bareraft: group %d replica %d applied proposal %d twice", r.g.id, r.id, r.twice)
	}
	for seq, ok := range r.g.proposed {
		applied := seq < len(r.appliedSeq) && r.appliedSeq[seq]
		switch {
		case ok && !applied:
			return fmt.Errorf("bareraft: group %d replica %d never applied accepted proposal %d (applied %d of %d)", r.g.id, r.id, seq, r.appliedCount, accepted)
		case !ok && applied:
			return fmt.Errorf("bareraft: group %d replica %d applied proposal %d, which raft never accepted", r.g.id, r.id, seq)
		}
	}
	if r.appliedCount != accepted {
		return fmt.Errorf("bareraft: group %d replica %d applied %d proposals, %d were accepted", r.g.id, r.id, r.appliedCount, accepted)
	}
	return nil
}
