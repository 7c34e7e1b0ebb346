package properties

import (
	"strings"
	"testing"
)

// TestStoreKeepsAcknowledgedHandBroken: stores reopened after a broker
// acknowledged its log through index 10 in term 3 and answered clients
// from applied index 8. Raft's rules give each verdict: entries are
// acknowledged only once durable, and within a term a matched prefix is
// never replaced, so a store in term 3 must reach index 10; a later term
// may have replaced the suffix; an earlier term, or nothing, lost it; a
// compacted prefix is held and applied.
func TestStoreKeepsAcknowledgedHandBroken(t *testing.T) {
	acked := AcknowledgedGroup{Broker: "broker-2", Group: 3, HasAppend: true, Append: AcknowledgedAppend{Term: 3, Index: 10, To: "broker-1", AtNs: 7},
		Applied: 8, AppliedAtNs: 9}
	store := func(term, last, snap, applied uint64) RecoveredGroup {
		return RecoveredGroup{Found: true, HardState: RaftHardState{Term: term, Commit: applied}, LastIndex: last, SnapshotIndex: snap, Applied: applied}
	}
	for _, c := range []struct {
		name string
		rec  RecoveredGroup
		want string // "" holds; else a phrase the error must carry
	}{
		{"everything kept", store(3, 10, 0, 8), ""},
		{"more than acknowledged", store(3, 14, 0, 12), ""},
		{"a later term's shorter log", store(4, 6, 0, 8), ""},
		{"compacted past the index", store(3, 12, 12, 12), ""},
		{"the acknowledged tail lost", store(3, 9, 0, 8), "entries 10..10 are lost"},
		{"several entries lost", store(3, 6, 0, 6), "entries 7..10 are lost"},
		{"the term lost", store(2, 10, 0, 8), "recovered term 2"},
		{"nothing of the group", RecoveredGroup{}, "recovered nothing of the group"},
		{"the applied index lost", store(3, 10, 0, 7), "the commits that applied 8..8 are lost"},
		{"applied below, compaction point above", store(3, 10, 8, 0), ""},
	} {
		verdictIs(t, c.name, StoreKeepsAcknowledged(&acked, &c.rec), string(InvariantStoreKeepsAcknowledged)+": broker-2 group 3", c.want)
	}
	if err := StoreKeepsAcknowledged(&AcknowledgedGroup{Broker: "b", Group: 1}, &RecoveredGroup{}); err != nil {
		t.Errorf("nothing acknowledged: %v", err)
	}
}

// TestStoreRoundsWholeHandBroken: a position row naming [3, 7) needs the
// log rows at 3 and 6 and none at 7; an empty window needs none.
func TestStoreRoundsWholeHandBroken(t *testing.T) {
	pos := func(first, next uint64, holdsFirst, holdsLast, holdsNext bool) RecoveredPosition {
		return RecoveredPosition{Scope: "acme/orders/s/0", FirstOffset: first, NextOffset: next, HoldsFirst: holdsFirst, HoldsLast: holdsLast, HoldsNext: holdsNext}
	}
	for _, c := range []struct {
		name string
		p    RecoveredPosition
		want string
	}{
		{"whole", pos(3, 7, true, true, false), ""},
		{"empty window", pos(7, 7, false, false, false), ""},
		{"last row missing", pos(3, 7, true, false, false), "no log row at offset 6"},
		{"first row missing", pos(3, 7, false, true, false), "no log row at offset 3"},
		{"a row past the window", pos(3, 7, true, true, true), "log row at offset 7, past the window"},
	} {
		err := StoreRoundsWhole("broker-1", []RecoveredPosition{pos(0, 2, true, true, false), c.p})
		verdictIs(t, c.name, err, string(InvariantStoreRoundsWhole)+": broker-1 scope acme/orders/s/0", c.want)
	}
}

// verdictIs requires err to be nil when want is empty, and otherwise an
// error starting with prefix (the invariant and what it names) and
// containing want.
func verdictIs(t *testing.T, name string, err error, prefix, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: %v", name, err)
	case want != "" && (err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), want)):
		t.Errorf("%s: %v, want an error starting %q and naming %q", name, err, prefix, want)
	}
}
