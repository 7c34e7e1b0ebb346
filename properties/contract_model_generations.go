package properties

// Stream generations and the feature gate in the contract model
// (docs/atomic-commit.md, "A stream deleted and created again" and
// "Ephemeral streams and the feature gate"). A stream deleted and created
// again is a new stream under the old name. The delete takes effect at a
// marker in each shard's log: from there every request is refused
// (UnknownStream), a write accepted before the marker and applied after
// it included, and the marker empties the scope: its records, its state,
// its outbox rows and its consumer groups, which start over at the tail
// with no leases. A create starts the next generation, live, at the same
// tail: offsets go on, so two generations never share one. Commits
// (commit and commit_if) are refused with FeatureNotFinalized until an
// operator finalizes atomic_commit.

// Generation is the scope's stream generation (1 at the start) and
// whether it is deleted.
func (s *ContractScope) Generation() (generation uint32, deleted bool) {
	return s.generation, s.deleted
}

// Delete applies a delete marker: a live generation becomes deleted and
// the scope is emptied; a deleted one stays as it is.
func (s *ContractScope) Delete() {
	if s.deleted {
		return
	}
	s.deleted = true
	s.empty()
}

// Create applies a create marker: a deleted stream's next generation
// starts, live, at the tail; a live one stays as it is.
func (s *ContractScope) Create() {
	if !s.deleted {
		return
	}
	s.deleted = false
	s.generation++
	s.empty()
}

// empty drops every record, row and lease: what a generation's marker does.
func (s *ContractScope) empty() {
	s.dropBelow(s.next)
	s.outbox, s.outboxStart = s.outbox[:0], s.next
	for i := range s.groups {
		g := &s.groups[i]
		g.Leases, g.DeliverNextOffset, g.CommittedOffset = nil, s.next, s.next
	}
}

// Finalize applies the atomic_commit feature's finalization: commits are
// accepted from here on.
func (s *ContractScope) Finalize() { s.cfg.Finalized = true }
