package statemachine

import (
	"slices"
	"strings"
)

// GroupPosition is one consumer group's committed position: every offset
// below it is acked.
type GroupPosition struct {
	Name            string
	CommittedOffset uint64
}

// AppendGroupPositions appends every group's committed position to dst, in
// ascending name order; cheaper than Groups, which copies the leases.
func (s *Shard) AppendGroupPositions(dst []GroupPosition) []GroupPosition {
	// Appended in map order, then sorted in place: the in-run checks read
	// these after every durable round, and names() allocated and sorted a
	// slice of its own each time.
	start := len(dst)
	for n, g := range s.groups.m { //det:ok sorted below
		dst = append(dst, GroupPosition{Name: n, CommittedOffset: g.committed})
	}
	slices.SortFunc(dst[start:], func(a, b GroupPosition) int { return strings.Compare(a.Name, b.Name) })
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
