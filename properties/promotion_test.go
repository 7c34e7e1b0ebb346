package properties

import (
	"strings"
	"testing"
)

// TestPromotedCaughtUp: a member whose stored log holds the leader's
// committed prefix (as entries, or inside a snapshot) passes; hand-broken
// members (a log that ends short of the commit mark, an empty one, one
// with a stale term below the mark) fail PromotedCaughtUp; entries past
// the mark are not judged, and a commit mark past the leader's own log is
// refused as input.
func TestPromotedCaughtUp(t *testing.T) {
	leader := StoredTerms{Terms: []uint64{1, 1, 2, 2, 3, 3}} // indexes 1..6
	promo := func(commit uint64, member StoredTerms) *Promotion {
		return &Promotion{Group: 2, Leader: "broker-1", Member: "broker-9", CommitIndex: commit, LeaderLog: leader, MemberLog: member}
	}
	for _, tc := range []struct {
		name   string
		p      *Promotion
		breaks bool
		says   string
	}{
		{"entries through the mark", promo(5, StoredTerms{Terms: []uint64{1, 1, 2, 2, 3}}), false, ""},
		{"a snapshot past the mark", promo(5, StoredTerms{SnapshotIndex: 6, SnapshotTerm: 3}), false, ""},
		{"a snapshot then entries", promo(5, StoredTerms{SnapshotIndex: 3, SnapshotTerm: 2, Terms: []uint64{2, 3}}), false, ""},
		{"an uncommitted suffix that differs", promo(4, StoredTerms{Terms: []uint64{1, 1, 2, 2, 4}}), false, ""},
		{"one committed entry short", promo(5, StoredTerms{Terms: []uint64{1, 1, 2, 2}}), true, "ends at index 4"},
		{"an empty log (a new identity that only answered)", promo(5, StoredTerms{}), true, "5 committed entries missing"},
		{"a snapshot short of the mark", promo(5, StoredTerms{SnapshotIndex: 3, SnapshotTerm: 2}), true, "ends at index 3"},
		{"a stale term below the mark", promo(5, StoredTerms{Terms: []uint64{1, 1, 2, 1, 1}}), true, "entry 4 has term 1"},
		{"a snapshot of another history", promo(5, StoredTerms{SnapshotIndex: 5, SnapshotTerm: 2}), true, "entry 5 has term 2"},
	} {
		err := PromotedCaughtUp(tc.p)
		switch {
		case !tc.breaks && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.breaks && (err == nil || !strings.HasPrefix(err.Error(), string(InvariantPromotedCaughtUp)+":") || !strings.Contains(err.Error(), tc.says)):
			t.Errorf("%s: got %v, want a PromotedCaughtUp violation saying %q", tc.name, err, tc.says)
		}
	}
	bad := promo(7, StoredTerms{Terms: []uint64{1, 1, 2, 2, 3, 3}})
	if err := PromotedCaughtUp(bad); err == nil || strings.HasPrefix(err.Error(), string(InvariantPromotedCaughtUp)) {
		t.Errorf("a commit mark past the leader's log: got %v, want an input refusal", err)
	}
}
