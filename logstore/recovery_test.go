package logstore

import (
	"testing"

	"github.com/felixsim/felixsim/vfs"
)

// TestRecoveryNamesWhatTheTailHeld builds the tails a crash can leave
// after one committed transaction, byte by byte from the file layout the
// package doc states (frames, then the commit marker written twice), and
// requires Open to name each and say how much it cut.
func TestRecoveryNamesWhatTheTailHeld(t *testing.T) {
	m := vfs.NewMem()
	s := openMem(t, m)
	mustCommit(t, s, fullBatch(scopeOf("a", 0), 2, 1))
	end1 := s.Stats().FileBytes
	mustCommit(t, s, fullBatch(scopeOf("a", 0), 2, 2))
	end2 := s.Stats().FileBytes
	full, err := vfs.ReadAll(m, "node1/"+FileName)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(full)) != end2 {
		t.Fatalf("file holds %d bytes, the store says %d", len(full), end2)
	}
	marker := int64(commitFrameBytes)
	cases := []struct {
		name    string
		keep    int64 // bytes of the second transaction left in the file
		want    RecoveryKind
		cutWant int64
	}{
		{"whole", end2 - end1, RecoveryClean, 0},
		{"no transaction after the first", 0, RecoveryClean, 0},
		{"frames without a marker", end2 - end1 - 2*marker, RecoveryPartial, end2 - end1 - 2*marker},
		{"last frame cut short", end2 - end1 - 2*marker - 3, RecoveryTorn, end2 - end1 - 2*marker - 3},
		{"first frame cut short", 5, RecoveryTorn, 5},
		{"marker without its copy", end2 - end1 - marker, RecoverySealRestored, 0},
		{"marker with part of its copy", end2 - end1 - marker + 7, RecoverySealRestored, 7},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := vfs.NewMem()
			if err := fs.MkdirAll("node1"); err != nil {
				t.Fatal(err)
			}
			f, err := fs.Create("node1/" + FileName)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(full[:end1+c.keep]); err != nil {
				t.Fatal(err)
			}
			s := openMem(t, fs)
			got := s.Recovery()
			if got.Kind != c.want || got.CutBytes != c.cutWant {
				t.Fatalf("recovery %s cut %d bytes, want %s cut %d", got.Kind, got.CutBytes, c.want, c.cutWant)
			}
			wantSeq := uint64(1)
			if c.want == RecoverySealRestored || c.keep == end2-end1 {
				wantSeq = 2
			}
			if s.Stats().Transactions != wantSeq {
				t.Fatalf("%d transactions after recovery, want %d", s.Stats().Transactions, wantSeq)
			}
		})
	}
}
