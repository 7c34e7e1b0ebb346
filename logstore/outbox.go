package logstore

import (
	"sort"

	"github.com/felixsim/felixsim/felix"
)

// OutboxRange returns up to limit outbox rows of scope with offset >= from,
// in offset order, as WritePut rows: a relay's read. limit <= 0 means all.
func (s *Store) OutboxRange(scope felix.Scope, from uint64, limit int) []OutboxRow {
	m := s.tab.outbox[scope]
	offsets := make([]uint64, 0, len(m))
	for o := range m {
		if o >= from {
			offsets = append(offsets, o)
		}
	}
	sort.Slice(offsets, func(i, j int) bool { return offsets[i] < offsets[j] })
	if limit > 0 && len(offsets) > limit {
		offsets = offsets[:limit]
	}
	out := make([]OutboxRow, len(offsets))
	for i, o := range offsets {
		out[i] = OutboxRow{Kind: WritePut, Scope: scope, Offset: o, Intent: m[o]}
	}
	return out
}
