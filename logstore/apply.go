package logstore

import (
	"fmt"
	"slices"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/felixsim/felixsim/felix"
)

// group is one raft group's persisted state.
//
// Invariant: len(ents) >= 1; ents[0] is a dummy entry at the index and term
// of the last compaction point (the snapshot's, or 0/0), and ents[i] has
// index ents[0].Index+i.
// Invariant: applied only grows, and applied <= lastIndex(): applied
// entries are never cut from the log.
type group struct {
	snapshot  *raftpb.Snapshot
	ents      []*raftpb.Entry
	hardState *raftpb.HardState
	// applied is the raft index the caller applied last (0 = never said).
	applied uint64
}

func newGroup() *group {
	return &group{
		snapshot: raftpb.EnsureSnapshot(nil),
		ents:     []*raftpb.Entry{{Term: new(uint64(0)), Index: new(uint64(0))}},
	}
}

func (g *group) firstIndex() uint64 { return g.ents[0].GetIndex() + 1 }
func (g *group) lastIndex() uint64  { return g.ents[0].GetIndex() + uint64(len(g.ents)) - 1 }

// checkInvariant checks the ends of the entry slice in O(1); batches are
// checked to hold consecutive entries before they get here.
func (g *group) checkInvariant() {
	last := g.ents[len(g.ents)-1]
	if last.GetIndex() != g.ents[0].GetIndex()+uint64(len(g.ents)-1) {
		panic(fmt.Sprintf("logstore: group has %d entries from dummy index %d but the last has index %d",
			len(g.ents), g.ents[0].GetIndex(), last.GetIndex()))
	}
}

// nextGroup returns the group after w, leaving g untouched (entry slices are
// copied on write, as raft may still hold the old ones). It returns the
// group by value, so planning allocates none: install copies it in.
func nextGroup(g *group, w *GroupWrite, d Defects) (group, error) {
	n := *g
	if w.Snapshot != nil {
		si, cur := w.Snapshot.GetMetadata().GetIndex(), n.snapshot.GetMetadata().GetIndex()
		if cur != 0 && cur >= si {
			return group{}, fmt.Errorf("group %d snapshot at index %d is not newer than the stored one at %d: %w", w.Group, si, cur, raft.ErrSnapOutOfDate)
		}
		n.snapshot = raftpb.EnsureSnapshot(w.Snapshot)
		n.ents = []*raftpb.Entry{{Term: new(w.Snapshot.GetMetadata().GetTerm()), Index: new(si)}}
	}
	if len(w.Entries) > 0 && w.Entries[0].GetIndex() <= n.applied {
		return group{}, fmt.Errorf("group %d entries from index %d would replace applied entries (applied index %d): applied entries are never cut", w.Group, w.Entries[0].GetIndex(), n.applied)
	}
	if err := n.append(w.Group, w.Entries); err != nil {
		return group{}, err
	}
	if d.keepsStaleSuffix() && w.Snapshot == nil {
		n.ents = keepStaleSuffix(g.ents, n.ents)
	}
	if w.HardState != nil {
		n.hardState = w.HardState
	}
	if w.Compact != nil {
		if err := n.compact(w.Group, w.Compact.Snapshot); err != nil {
			return group{}, err
		}
	}
	if err := n.setApplied(w.Group, w.AppliedIndex); err != nil {
		return group{}, err
	}
	if n.applied > n.lastIndex() {
		return group{}, fmt.Errorf("group %d would end at index %d, below its applied index %d: applied entries are never cut", w.Group, n.lastIndex(), n.applied)
	}
	n.checkInvariant()
	return n, nil
}

func (g *group) append(id uint64, entries []*raftpb.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	first := g.firstIndex()
	last := entries[0].GetIndex() + uint64(len(entries)) - 1
	if last < first {
		return nil
	}
	if first > entries[0].GetIndex() {
		entries = entries[first-entries[0].GetIndex():]
	}
	offset := entries[0].GetIndex() - g.ents[0].GetIndex()
	if offset > uint64(len(g.ents)) {
		return fmt.Errorf("group %d appends at index %d after last index %d: the log would have a gap", id, entries[0].GetIndex(), g.lastIndex())
	}
	if offset == uint64(len(g.ents)) {
		// A plain append may share the backing array: every view of the
		// old log is shorter and never sees the new slots.
		g.ents = append(g.ents, entries...)
		return nil
	}
	// Replacing a suffix: copy, as the old log still holds those slots.
	g.ents = append(g.ents[:offset:offset], entries...)
	return nil
}

// setApplied records the applied index i (0 keeps the stored one), which
// must not go back.
func (g *group) setApplied(id, i uint64) error {
	if i == 0 {
		return nil
	}
	if i < g.applied {
		return fmt.Errorf("group %d applied index %d is below the stored %d: applied indexes never go back", id, i, g.applied)
	}
	g.applied = i
	return nil
}

func (g *group) compact(id uint64, snap *raftpb.Snapshot) error {
	i := snap.GetMetadata().GetIndex()
	if i <= g.ents[0].GetIndex() {
		return fmt.Errorf("group %d compaction at index %d is not after the compaction point %d: %w", id, i, g.ents[0].GetIndex(), raft.ErrCompacted)
	}
	if i > g.lastIndex() {
		return fmt.Errorf("group %d compaction at index %d is beyond last index %d: %w", id, i, g.lastIndex(), raft.ErrUnavailable)
	}
	at := g.ents[i-g.ents[0].GetIndex()]
	if at.GetTerm() != snap.GetMetadata().GetTerm() {
		return fmt.Errorf("group %d compaction snapshot has term %d but entry %d has term %d", id, snap.GetMetadata().GetTerm(), i, at.GetTerm())
	}
	rest := g.ents[i-g.ents[0].GetIndex()+1:]
	ents := make([]*raftpb.Entry, 1, 1+len(rest))
	ents[0] = &raftpb.Entry{Index: new(i), Term: new(at.GetTerm())}
	g.ents = append(ents, rest...)
	next := proto.Clone(snap).(*raftpb.Snapshot)
	if next.GetMetadata().GetConfState() == nil {
		// Like raft's CreateSnapshot with a nil ConfState: keep the last one.
		next.Metadata = raftpb.EnsureSnapshotMetadata(next.Metadata)
		next.Metadata.ConfState = g.snapshot.GetMetadata().GetConfState()
	}
	g.snapshot = raftpb.EnsureSnapshot(next)
	return nil
}

// plan checks a decoded batch against the store and computes the groups it
// leaves; nothing in the store changes.
//
// The groups are in s.planGroups's array when it has room, written whole;
// install clears them and keeps the array for the next plan.
func (s *Store) plan(b *Batch) ([]group, error) {
	groups := reuseRows(s.planGroups, len(b.Groups))
	if err := s.planInto(groups, b); err != nil {
		clear(groups)
		return nil, err
	}
	return groups, nil
}

// planInto is plan writing the groups into groups, one per group write.
func (s *Store) planInto(groups []group, b *Batch) error {
	for i := range b.Groups {
		w := &b.Groups[i]
		g, ok := s.groups[w.Group]
		if !ok {
			g = newGroup()
		}
		n, err := nextGroup(g, w, s.defects)
		if err != nil {
			return err
		}
		groups[i] = n
	}
	for i := range b.Log {
		r := &b.Log[i]
		if _, ok := s.tab.log[r.Scope][r.Offset]; ok {
			return fmt.Errorf("log row %d: %s offset %d already holds a record; log rows are never overwritten", i, r.Scope, r.Offset)
		}
	}
	for i := range b.Positions {
		r := &b.Positions[i]
		if old, ok := s.tab.position[r.Scope]; ok && r.Position.FirstOffset < old.FirstOffset {
			return fmt.Errorf("position row %d: %s first offset %d is below the stored %d: the retained window never moves back",
				i, r.Scope, r.Position.FirstOffset, old.FirstOffset)
		}
	}
	if i, ok := logRowsDistinct(b.Log); !ok {
		r := &b.Log[i]
		return fmt.Errorf("log row %d: %s offset %d already holds a record; log rows are never overwritten", i, r.Scope, r.Offset)
	}
	return nil
}

// logRowsDistinct reports whether no two log rows share a scope and
// offset, else the index of the first row repeating an earlier one. The
// usual batch (runs of one scope at rising offsets, each scope in one run)
// is checked without building a set.
func logRowsDistinct(rows []LogRow) (int, bool) {
	var runsBuf [8]felix.Scope
	runs, simple := runsBuf[:0], true
	for i := range rows {
		if i > 0 && rows[i].Scope == rows[i-1].Scope {
			if rows[i].Offset <= rows[i-1].Offset {
				simple = false
				break
			}
			continue
		}
		if slices.Contains(runs, rows[i].Scope) {
			simple = false
			break
		}
		runs = append(runs, rows[i].Scope)
	}
	if simple {
		return 0, true
	}
	type logKey struct {
		scope  felix.Scope
		offset uint64
	}
	seen := make(map[logKey]bool, len(rows))
	for i := range rows {
		k := logKey{rows[i].Scope, rows[i].Offset}
		if seen[k] {
			return i, false
		}
		seen[k] = true
	}
	return 0, true
}

// install makes a planned batch visible in the in-memory indexes. A group
// the store holds is overwritten in place (a GroupStorage keeps the
// pointer), and the entry slices raft may hold are never written, only
// replaced.
func (s *Store) install(b *Batch, groups []group) {
	for i := range groups {
		id := b.Groups[i].Group
		if g, ok := s.groups[id]; ok {
			*g = groups[i]
			continue
		}
		g := groups[i]
		s.groups[id] = &g
	}
	s.planGroups = keepRows(s.planGroups, groups)
	s.tab.apply(b)
}
