package properties

import "fmt"

// RaftHardState is a broker's durable raft state of one group: its term,
// the node it voted for in that term (0: none) and its commit index.
type RaftHardState struct {
	Term, Vote, Commit uint64
}

// String renders the state as term/vote/commit.
func (h RaftHardState) String() string {
	return fmt.Sprintf("term %d vote %d commit %d", h.Term, h.Vote, h.Commit)
}

// RaftEntry is one stored raft log entry: its term and its opaque data.
type RaftEntry struct {
	Term uint64
	Data []byte
}

// StoredRaftLog is one broker's stored raft log of one group, or a window
// of it: the entries at FirstIndex, FirstIndex+1, … as the store holds
// them, and the stored hard state.
type StoredRaftLog struct {
	Broker    string
	Group     uint64
	HardState RaftHardState
	// FirstIndex is the index of Entries[0] (ignored when Entries is empty).
	FirstIndex uint64
	Entries    []RaftEntry
}

// lastIndex is the index of the last entry, or FirstIndex-1 when empty.
func (l *StoredRaftLog) lastIndex() uint64 { return l.FirstIndex + uint64(len(l.Entries)) - 1 }

// at returns the entry at index i, or false outside the stored window.
func (l *StoredRaftLog) at(i uint64) (*RaftEntry, bool) {
	if len(l.Entries) == 0 || i < l.FirstIndex || i > l.lastIndex() {
		return nil, false
	}
	return &l.Entries[i-l.FirstIndex], true
}

// StoredLogTermsMonotonic checks that the terms along a stored raft log
// never decrease, and that no stored entry's term exceeds the stored
// hard state's term (raft persists a term before any entry of it). A
// follower that keeps a stale suffix after a conflicting append breaks
// the first half.
func StoredLogTermsMonotonic(l *StoredRaftLog) error {
	for i := 1; i < len(l.Entries); i++ {
		if l.Entries[i].Term < l.Entries[i-1].Term {
			return InvariantRaftLogTermsMonotonic.Errorf("%s group %d: stored entry %d has term %d after entry %d at term %d",
				l.Broker, l.Group, l.FirstIndex+uint64(i), l.Entries[i].Term, l.FirstIndex+uint64(i-1), l.Entries[i-1].Term)
		}
	}
	if n := len(l.Entries); n > 0 && l.HardState.Term != 0 && l.Entries[n-1].Term > l.HardState.Term {
		return InvariantRaftLogTermsMonotonic.Errorf("%s group %d: stored entry %d has term %d, past the stored hard state's term %d",
			l.Broker, l.Group, l.lastIndex(), l.Entries[n-1].Term, l.HardState.Term)
	}
	return nil
}

// StoredLogsAgree checks that every pair of stored logs of one group
// holds the same entry (term and data) at every index at or below both
// logs' stored commit index: a committed entry is the same everywhere.
// Logs of different groups are compared only within their group.
func StoredLogsAgree(logs []StoredRaftLog) error {
	for i := range logs {
		ref := &logs[i]
		for j := i + 1; j < len(logs); j++ {
			if logs[j].Group != ref.Group {
				continue
			}
			if err := logsAgree(ref, &logs[j]); err != nil {
				return err
			}
		}
	}
	return nil
}

// logsAgree compares a and b on the indices both hold at or below both
// commit indexes.
func logsAgree(a, b *StoredRaftLog) error {
	hi := min(a.HardState.Commit, b.HardState.Commit, a.lastIndex(), b.lastIndex())
	lo := max(a.FirstIndex, b.FirstIndex)
	if len(a.Entries) == 0 || len(b.Entries) == 0 {
		return nil
	}
	for i := lo; i <= hi; i++ {
		ea, _ := a.at(i)
		eb, _ := b.at(i)
		if ea.Term != eb.Term || string(ea.Data) != string(eb.Data) {
			return InvariantRaftLogsAgree.Errorf("group %d index %d (committed on both: %s commit %d, %s commit %d): %s holds term %d %q, %s holds term %d %q",
				a.Group, i, a.Broker, a.HardState.Commit, b.Broker, b.HardState.Commit,
				a.Broker, ea.Term, clipBytes(ea.Data), b.Broker, eb.Term, clipBytes(eb.Data))
		}
	}
	return nil
}

// HardStateNeverBackwards checks a broker's hard state of one group at
// a later point (after a restart: what its store reads back) against an
// earlier one (what raft was told is durable): the term never decreases;
// within one term a cast vote never changes or disappears; the commit
// index never decreases.
func HardStateNeverBackwards(broker string, group uint64, before, after RaftHardState) error {
	switch {
	case after.Term < before.Term:
		return InvariantHardStateMonotonic.Errorf("%s group %d: term moved back from %d to %d (was %s, now %s)", broker, group, before.Term, after.Term, before, after)
	case after.Term == before.Term && before.Vote != 0 && after.Vote != before.Vote:
		return InvariantHardStateMonotonic.Errorf("%s group %d: in term %d its vote for %d became %d (was %s, now %s)", broker, group, after.Term, before.Vote, after.Vote, before, after)
	case after.Commit < before.Commit:
		return InvariantHardStateMonotonic.Errorf("%s group %d: commit index moved back from %d to %d (was %s, now %s)", broker, group, before.Commit, after.Commit, before, after)
	}
	return nil
}

// clipBytes shows at most the first 40 bytes of an entry's data.
func clipBytes(p []byte) string {
	if len(p) > 40 {
		return string(p[:40]) + "…"
	}
	return string(p)
}
