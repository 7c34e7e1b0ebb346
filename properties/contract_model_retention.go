package properties

// Retention in the contract model (docs/atomic-commit.md, "Retention and
// rebuild"): a scope keeps at most RetainedLenMax records, dropping the
// oldest at the write that overflows the window, and a retain command
// drops every record below its offset at its own log position. Both stop
// at the lowest committed position of the scope's consumer groups: a
// retain command is clamped there, and a write that would drop a record a
// group still owes is refused (Unavailable, nothing written) until the
// group acks past it. The state is the fold of the retained log, so a key
// whose last write is dropped reads absent (StateGet folds s.log). The
// outbox keeps its rows (contract_model_outbox.go).

// groupsCommittedMin is the lowest committed position of the scope's
// groups, or the tail when it has none: retention never drops past it.
func (s *ContractScope) groupsCommittedMin() uint64 {
	low := s.next
	for i := range s.groups {
		low = min(low, s.groups[i].CommittedOffset)
	}
	return low
}

// countRoom reports whether one more write fits retention by count: the
// records it would push out of the window are ones no group still owes.
func (s *ContractScope) countRoom() bool {
	if s.cfg.RetainedLenMax <= 0 || s.next+1-s.first <= uint64(s.cfg.RetainedLenMax) {
		return true
	}
	return s.next+1-uint64(s.cfg.RetainedLenMax) <= s.groupsCommittedMin()
}

// retainByCount drops the records a write pushed out of the window.
func (s *ContractScope) retainByCount() {
	if s.cfg.RetainedLenMax > 0 && s.next-s.first > uint64(s.cfg.RetainedLenMax) {
		s.dropBelow(s.next - uint64(s.cfg.RetainedLenMax))
	}
}

// Retain applies a retain command dropping below offset below, clamped to
// the tail and to the lowest committed group position; it returns the
// first retained offset after it.
func (s *ContractScope) Retain(below uint64) uint64 {
	if !s.deleted && !s.cfg.Ephemeral {
		s.dropBelow(min(below, s.groupsCommittedMin()))
	}
	return s.first
}

// dropBelow drops every retained record below offset below (at most the tail).
func (s *ContractScope) dropBelow(below uint64) {
	below = min(below, s.next)
	if below <= s.first {
		return
	}
	s.log = append(s.log[:0], s.log[below-s.first:]...)
	s.first = below
}
