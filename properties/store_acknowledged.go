package properties

import "fmt"

// AcknowledgedAppend is the append a broker last acknowledged in one raft
// group: in Term, that its log held the leader's entries through Index.
// A follower says so to its leader (To) with a MsgAppResp; a leader
// appending new entries says so to itself (raft counts its own append
// towards the quorum). Either way raft elsewhere now counts on the
// broker's store to keep those entries.
type AcknowledgedAppend struct {
	Term, Index uint64
	To          string
	AtNs        int64
}

// AcknowledgedGroup is what a broker acknowledged in one raft group
// before a crash: its last append (HasAppend) and the applied index it
// last made durable, from which it answered clients (0: none).
type AcknowledgedGroup struct {
	Broker      string
	Group       uint64
	Append      AcknowledgedAppend
	HasAppend   bool
	Applied     uint64
	AppliedAtNs int64
}

// RecoveredGroup is one raft group as a broker's store recovered it when
// it opened: Found is false when the store holds nothing of the group.
type RecoveredGroup struct {
	Found     bool
	HardState RaftHardState
	// SnapshotIndex is the compaction point; LastIndex the last stored
	// index (the compaction point's when no entry follows it); Applied
	// the stored applied index.
	SnapshotIndex, LastIndex, Applied uint64
}

// String renders what the store recovered.
func (r *RecoveredGroup) String() string {
	if !r.Found {
		return "nothing of the group"
	}
	return fmt.Sprintf("%s, log through index %d (compacted through %d), applied index %d", r.HardState, r.LastIndex, r.SnapshotIndex, r.Applied)
}

// StoreKeepsAcknowledged checks one raft group of a broker's store, as it
// opened, against what the broker acknowledged before it went down.
//
// The append: raft sends a MsgAppResp (and counts a leader's own append)
// only once the entries are durable, and within one term a log that
// matched its leader's through an index keeps matching it there (only a
// leader of a later term replaces a suffix). So a store that recovered
// the acknowledgement's term must hold the log through its index (a
// compacted prefix counts: it is applied), and a store that recovered an
// earlier term, or none, lost it. A store that recovered a later term
// may hold less: that term's leader may have replaced the suffix.
//
// The applied index: a broker answers clients from what it applied, and
// makes the applied index durable with the rows applying wrote, in one
// store commit; a store that recovered a lower one (its compaction point
// counts as applied) lost a commit it had returned from.
func StoreKeepsAcknowledged(acked *AcknowledgedGroup, rec *RecoveredGroup) error {
	if a := &acked.Append; acked.HasAppend {
		switch {
		case !rec.Found || rec.HardState.Term < a.Term:
			return InvariantStoreKeepsAcknowledged.Errorf("%s group %d acknowledged its log through index %d in term %d to %s at %d ns; its store recovered %s: the term and the entries are lost",
				acked.Broker, acked.Group, a.Index, a.Term, a.To, a.AtNs, rec)
		case rec.HardState.Term == a.Term && max(rec.LastIndex, rec.SnapshotIndex) < a.Index:
			return InvariantStoreKeepsAcknowledged.Errorf("%s group %d acknowledged its log through index %d in term %d to %s at %d ns; its store recovered %s: entries %d..%d are lost",
				acked.Broker, acked.Group, a.Index, a.Term, a.To, a.AtNs, rec, max(rec.LastIndex, rec.SnapshotIndex)+1, a.Index)
		}
	}
	if acked.Applied > 0 && max(rec.Applied, rec.SnapshotIndex) < acked.Applied {
		return InvariantStoreKeepsAcknowledged.Errorf("%s group %d made applied index %d durable at %d ns and answered clients from it; its store recovered %s: the commits that applied %d..%d are lost",
			acked.Broker, acked.Group, acked.Applied, acked.AppliedAtNs, rec, max(rec.Applied, rec.SnapshotIndex)+1, acked.Applied)
	}
	return nil
}

// RecoveredPosition is one scope's position row as a broker's store
// recovered it: the retained window [FirstOffset, NextOffset) it names,
// and whether the store's log table holds the records at the window's
// first and last offsets and one at NextOffset, past it.
type RecoveredPosition struct {
	Scope                            string
	FirstOffset, NextOffset          uint64
	HoldsFirst, HoldsLast, HoldsNext bool
}

// StoreRoundsWhole checks the position rows of a broker's store, as it
// opened, against its log rows: a round's position row and its log rows
// are written in one store commit, so a store that recovered whole
// commits holds the records at both ends of every window a position row
// names, and none past it. A position without its rows is a round split
// across commits, torn by the crash (the seed's all-or-nothing commit);
// rows past the position, the other half of such a split.
func StoreRoundsWhole(broker string, positions []RecoveredPosition) error {
	for i := range positions {
		p := &positions[i]
		if p.NextOffset > p.FirstOffset && !(p.HoldsFirst && p.HoldsLast) {
			missing := p.NextOffset - 1
			if !p.HoldsFirst {
				missing = p.FirstOffset
			}
			return InvariantStoreRoundsWhole.Errorf("%s scope %s: the store recovered a position row naming the window [%d, %d) but no log row at offset %d: a round's position landed without its records",
				broker, p.Scope, p.FirstOffset, p.NextOffset, missing)
		}
		if p.HoldsNext {
			return InvariantStoreRoundsWhole.Errorf("%s scope %s: the store recovered a log row at offset %d, past the window [%d, %d) its position row names: a round's records landed without its position",
				broker, p.Scope, p.NextOffset, p.FirstOffset, p.NextOffset)
		}
	}
	return nil
}
