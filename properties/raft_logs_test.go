package properties

import (
	"strings"
	"testing"
)

// storedLog builds a stored log of group 2 from index first with terms.
func storedLog(broker string, commit, first uint64, terms ...uint64) StoredRaftLog {
	l := StoredRaftLog{Broker: broker, Group: 2, FirstIndex: first, HardState: RaftHardState{Term: 9, Vote: 1, Commit: commit}}
	for i, tm := range terms {
		l.Entries = append(l.Entries, RaftEntry{Term: tm, Data: []byte{byte(first) + byte(i), byte(tm)}})
	}
	return l
}

func wantErr(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want one with %q", what, parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("%s: %v, want %q in it", what, err, p)
		}
	}
}

// TestStoredLogTermsMonotonic: rising and flat terms pass; a stale
// suffix (a lower term after a higher one) fails naming both indexes; an
// entry past the stored term fails.
func TestStoredLogTermsMonotonic(t *testing.T) {
	good := storedLog("b1", 4, 5, 1, 1, 2, 2, 5)
	if err := StoredLogTermsMonotonic(&good); err != nil {
		t.Fatal(err)
	}
	empty := StoredRaftLog{Broker: "b1", Group: 2}
	if err := StoredLogTermsMonotonic(&empty); err != nil {
		t.Fatal(err)
	}
	stale := storedLog("b1", 4, 5, 1, 3, 3, 2, 2)
	wantErr(t, "stale suffix", StoredLogTermsMonotonic(&stale), "RaftLogTermsMonotonic: b1 group 2: stored entry 8 has term 2 after entry 7 at term 3")
	ahead := storedLog("b1", 4, 5, 1, 10)
	wantErr(t, "ahead of the hard state", StoredLogTermsMonotonic(&ahead), "entry 6 has term 10, past the stored hard state's term 9")
}

// TestStoredLogsAgree: logs that differ only above a commit index pass;
// a difference in term or in data at an index both committed fails.
func TestStoredLogsAgree(t *testing.T) {
	a := storedLog("b1", 3, 1, 1, 1, 2, 2)
	b := storedLog("b2", 4, 1, 1, 1, 2, 3)
	if err := StoredLogsAgree([]StoredRaftLog{a, b}); err != nil {
		t.Fatalf("differ above a's commit 3: %v", err)
	}
	other := storedLog("b3", 4, 1, 1, 1, 1, 1)
	other.Group = 3
	if err := StoredLogsAgree([]StoredRaftLog{a, other}); err != nil {
		t.Fatalf("another group is not compared: %v", err)
	}
	c := storedLog("b3", 3, 2, 1, 3, 3)
	wantErr(t, "term differs", StoredLogsAgree([]StoredRaftLog{a, b, c}), "RaftLogsAgree: group 2 index 3", "b1 holds term 2", "b3 holds term 3")
	d := storedLog("b2", 4, 1, 1, 1, 2, 2)
	d.Entries[1].Data = []byte("other")
	wantErr(t, "data differs", StoredLogsAgree([]StoredRaftLog{a, d}), "index 2", `"other"`)
}

// TestHardStateNeverBackwards: moving forward passes; a lower term, a
// lost or changed vote in the same term, and a lower commit fail.
func TestHardStateNeverBackwards(t *testing.T) {
	before := RaftHardState{Term: 5, Vote: 2, Commit: 10}
	for _, after := range []RaftHardState{before, {Term: 6, Commit: 10}, {Term: 5, Vote: 2, Commit: 11}} {
		if err := HardStateNeverBackwards("b1", 2, before, after); err != nil {
			t.Fatalf("%s -> %s: %v", before, after, err)
		}
	}
	if err := HardStateNeverBackwards("b1", 2, RaftHardState{Term: 5}, RaftHardState{Term: 5, Vote: 3}); err != nil {
		t.Fatalf("a vote cast after an empty one: %v", err)
	}
	wantErr(t, "term", HardStateNeverBackwards("b1", 2, before, RaftHardState{Term: 4, Vote: 2, Commit: 10}), "HardStateMonotonic: b1 group 2: term moved back from 5 to 4")
	wantErr(t, "vote lost", HardStateNeverBackwards("b1", 2, before, RaftHardState{Term: 5, Commit: 10}), "its vote for 2 became 0")
	wantErr(t, "vote changed", HardStateNeverBackwards("b1", 2, before, RaftHardState{Term: 5, Vote: 3, Commit: 10}), "its vote for 2 became 3")
	wantErr(t, "commit", HardStateNeverBackwards("b1", 2, before, RaftHardState{Term: 5, Vote: 2, Commit: 9}), "commit index moved back from 10 to 9")
}
