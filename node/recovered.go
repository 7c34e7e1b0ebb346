package node

import (
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/logstore"
)

// RecoveredStore is what a broker's store held when it opened, before the
// node rebuilt anything from it (Observer.Recovered): every raft group's
// durable state and every scope's position row, read from the store and
// not from anything the node derived. A checker compares it with what the
// broker acknowledged before it went down.
type RecoveredStore struct {
	Node   uint64
	Groups []RecoveredGroup
	Scopes []RecoveredScope
}

// RecoveredGroup is one raft group as the store recovered it.
type RecoveredGroup struct {
	Group     uint64
	HardState HardState
	// SnapshotIndex is the compaction point (the index of the snapshot
	// the log starts after; 0: none); LastIndex is the last stored
	// entry's index (SnapshotIndex when none is stored).
	SnapshotIndex, LastIndex uint64
	// AppliedIndex is the stored applied index (0: none stored; the
	// metadata group never stores one).
	AppliedIndex uint64
}

// RecoveredScope is one scope's position row as the store recovered it,
// and whether its log table holds the records that window's ends name.
type RecoveredScope struct {
	Scope felix.Scope
	// FirstOffset and NextOffset are the retained window [FirstOffset,
	// NextOffset) the position row names; AppliedIndex the raft index it
	// says the scope was applied through.
	FirstOffset, NextOffset, AppliedIndex uint64
	// HoldsFirst and HoldsLast say whether the log table holds the
	// records at FirstOffset and NextOffset-1 (meaningless for an empty
	// window); HoldsNext whether it holds one at NextOffset, past the
	// window.
	HoldsFirst, HoldsLast, HoldsNext bool
}

// observeRecovered shows the observer what the store holds as it opened.
func (n *Node) observeRecovered() {
	if n.cfg.Observer == nil {
		return
	}
	n.cfg.Observer.Recovered(recoveredStoreOf(n.cfg.ID, n.store))
}

// recoveredStoreOf reads what s holds: every group's raft state and every
// scope's position row, ascending.
func recoveredStoreOf(id uint64, s *logstore.Store) *RecoveredStore {
	r := &RecoveredStore{Node: id}
	for _, g := range s.Groups() {
		rs := s.RaftStorage(g)
		hs, _, _ := rs.InitialState() // reads memory: never fails
		first, _ := rs.FirstIndex()
		last, _ := rs.LastIndex()
		r.Groups = append(r.Groups, RecoveredGroup{Group: g, HardState: hardStateOf(hs), SnapshotIndex: first - 1, LastIndex: last,
			AppliedIndex: s.AppliedIndex(g)})
	}
	for _, sc := range s.Scopes() {
		pos, ok := s.PositionGet(sc)
		if !ok {
			continue
		}
		rec := RecoveredScope{Scope: sc, FirstOffset: pos.FirstOffset, NextOffset: pos.NextOffset, AppliedIndex: pos.AppliedIndex}
		_, rec.HoldsNext = s.LogGet(sc, pos.NextOffset)
		if pos.NextOffset > pos.FirstOffset {
			_, rec.HoldsFirst = s.LogGet(sc, pos.FirstOffset)
			_, rec.HoldsLast = s.LogGet(sc, pos.NextOffset-1)
		}
		r.Scopes = append(r.Scopes, rec)
	}
	return r
}
