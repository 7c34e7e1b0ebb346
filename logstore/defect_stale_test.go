package logstore

import (
	"slices"
	"testing"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/vfs"
)

// storedTerms lists group 4's stored entry terms, from its first index.
func storedTerms(t *testing.T, s *Store) []uint64 {
	t.Helper()
	rs := s.RaftStorage(4)
	first, _ := rs.FirstIndex()
	last, _ := rs.LastIndex()
	ents, err := rs.Entries(first, last+1, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	var terms []uint64
	for _, e := range ents {
		terms = append(terms, e.GetTerm())
	}
	return terms
}

// TestKeepStaleSuffixDefect: a conflicting append of one entry over three
// truncates the log to it; under DefectKeepStaleSuffix the two older
// entries beyond it stay (the shape the raft-log checks must catch), in
// memory and after a reopen alike.
func TestKeepStaleSuffixDefect(t *testing.T) {
	for _, c := range []struct {
		d    Defects
		want []uint64
	}{{0, []uint64{1, 3}}, {DefectKeepStaleSuffix, []uint64{1, 3, 2, 2}}} {
		fs := vfs.NewMem()
		s, err := Open(Options{FS: fs, Defects: c.d})
		if err != nil {
			t.Fatal(err)
		}
		mustCommit(t, s, &Batch{Groups: []GroupWrite{{Group: 4, Entries: []*raftpb.Entry{entry(1, 1, "a"), entry(2, 2, "b"), entry(3, 2, "c"), entry(4, 2, "d")}}}})
		mustCommit(t, s, &Batch{Groups: []GroupWrite{{Group: 4, Entries: []*raftpb.Entry{entry(2, 3, "B")}}}})
		if got := storedTerms(t, s); !slices.Equal(got, c.want) {
			t.Fatalf("defects %s: stored terms %v, want %v", c.d, got, c.want)
		}
		s.Close()
		s, err = Open(Options{FS: fs, Defects: c.d})
		if err != nil {
			t.Fatal(err)
		}
		if got := storedTerms(t, s); !slices.Equal(got, c.want) {
			t.Fatalf("defects %s, reopened: stored terms %v, want %v", c.d, got, c.want)
		}
	}
}
