package statemachine

import "github.com/felixsim/felixsim/felix"

// In-place reads of single rows, for a checker that compares a shard with
// a copy held elsewhere row by row instead of listing whole tables
// (Snapshot, Retained and Groups copy and sort).

// LogAt returns the retained record at offset, in place (valid until the
// shard next changes; do not modify it), or false outside the window.
func (s *Shard) LogAt(offset uint64) (*felix.Record, bool) {
	if offset < s.log.firstOffset || offset >= s.log.nextOffset {
		return nil, false
	}
	return &s.log.at(offset).Record, true
}

// GroupsLen is how many consumer groups the shard holds.
func (s *Shard) GroupsLen() int { return len(s.groups.m) }

// GroupGet returns consumer group name's state; its leases are the
// shard's (do not modify them).
func (s *Shard) GroupGet(name string) (GroupState, bool) {
	g, ok := s.groups.m[name]
	if !ok {
		return GroupState{}, false
	}
	return GroupState{Name: name, CommittedOffset: g.committed, DeliverNextOffset: g.deliverNext, Leases: g.leases}, true
}
