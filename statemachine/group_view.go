package statemachine

// GroupPosition is one consumer group's committed position: every offset
// below it is acked.
type GroupPosition struct {
	Name            string
	CommittedOffset uint64
}

// AppendGroupPositions appends every group's committed position to dst, in
// ascending name order; cheaper than Groups, which copies the leases.
func (s *Shard) AppendGroupPositions(dst []GroupPosition) []GroupPosition {
	for _, n := range s.groups.names() {
		dst = append(dst, GroupPosition{Name: n, CommittedOffset: s.groups.m[n].committed})
	}
	return dst
}

// GroupCommitted returns group name's committed position, or false if the
// group has never fetched on this shard.
func (s *Shard) GroupCommitted(name string) (uint64, bool) {
	g, ok := s.groups.m[name]
	if !ok {
		return 0, false
	}
	return g.committed, true
}
