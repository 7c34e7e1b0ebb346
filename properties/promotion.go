package properties

import "fmt"

// Promotions. A learner joins a raft group without a vote, catches up
// (by appends, or a snapshot), and only then is made a voter: a voter
// lacking committed entries weakens every quorum that counts it (it can
// acknowledge nothing new until it catches up, and cannot win an
// election), which is the availability a membership change must not
// spend. The check judges each promotion where the leader proposed it,
// from the abstract trace: the new voter's stored log at that moment
// must hold the leader's committed prefix, every index up to the leader's
// commit mark with the term the leader's own log has there.

// StoredTerms is a broker's stored raft log of one group as the promotion
// check reads it: everything up to SnapshotIndex is held as a snapshot
// (its last entry of term SnapshotTerm; 0 and 0 for a log from the
// start), and Terms[i] is the term of index SnapshotIndex+1+i.
type StoredTerms struct {
	SnapshotIndex, SnapshotTerm uint64
	Terms                       []uint64
}

// LastIndex is the log's last index.
func (l *StoredTerms) LastIndex() uint64 { return l.SnapshotIndex + uint64(len(l.Terms)) }

// term is the term of index i, when the log holds it as an entry or as
// its snapshot's last.
func (l *StoredTerms) term(i uint64) (uint64, bool) {
	switch {
	case i == l.SnapshotIndex:
		return l.SnapshotTerm, true
	case i > l.SnapshotIndex && i <= l.LastIndex():
		return l.Terms[i-l.SnapshotIndex-1], true
	}
	return 0, false
}

// Promotion is one membership change that makes Member a voter of Group,
// as its leader proposed it: the leader's commit mark at that moment and
// both brokers' stored logs then.
type Promotion struct {
	Group          uint64
	Leader, Member string
	// CommitIndex is the leader's commit mark when it proposed.
	CommitIndex uint64
	LeaderLog   StoredTerms
	MemberLog   StoredTerms
}

// PromotedCaughtUp checks PromotedCaughtUp for one promotion: the member's
// stored log holds every index up to the leader's commit mark (as entries,
// or inside its snapshot), and wherever both logs hold an index up to the
// mark, with the same term. A commit mark past the leader's own log is
// refused as malformed input.
func PromotedCaughtUp(p *Promotion) error {
	c, m := p.CommitIndex, &p.MemberLog
	if c > p.LeaderLog.LastIndex() {
		return fmt.Errorf("promotion in group %d refused: leader %s's commit mark %d is past its stored log's last index %d", p.Group, p.Leader, c, p.LeaderLog.LastIndex())
	}
	if m.LastIndex() < c {
		return InvariantPromotedCaughtUp.Errorf("group %d: leader %s proposed %s as a voter with the group committed through index %d, but %s's stored log ends at index %d (snapshot at %d): %d committed entries missing",
			p.Group, p.Leader, p.Member, c, p.Member, m.LastIndex(), m.SnapshotIndex, c-m.LastIndex())
	}
	for i := max(m.SnapshotIndex, p.LeaderLog.SnapshotIndex, 1); i <= c; i++ {
		mt, okM := m.term(i)
		lt, okL := p.LeaderLog.term(i)
		if okM && okL && mt != lt {
			return InvariantPromotedCaughtUp.Errorf("group %d: leader %s proposed %s as a voter with the group committed through index %d, but %s's stored entry %d has term %d where the leader's has term %d",
				p.Group, p.Leader, p.Member, c, p.Member, i, mt, lt)
		}
	}
	return nil
}
