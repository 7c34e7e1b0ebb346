package logstore

import (
	"testing"

	"github.com/felixsim/felixsim/vfs"
)

// TestDefectsRoundTrip parses every set of known defects back from its
// String, and refuses unknown names.
func TestDefectsRoundTrip(t *testing.T) {
	for d := Defects(0); d < defectEnd; d++ {
		got, err := ParseDefects(d.String())
		if err != nil || got != d {
			t.Fatalf("ParseDefects(%q) = %v, %v; want %v", d.String(), got, err, d)
		}
	}
	if _, err := ParseDefects("split-tables,no-such-bug"); err == nil {
		t.Fatal("an unknown defect name was accepted")
	}
	if _, err := Open(Options{FS: nil}); err == nil {
		t.Fatal("Open accepted a nil FS")
	}
}

// TestCutLastTxnLosesTheSyncedTransaction: after two whole transactions
// and the frames of a third without its marker (a crash mid-commit), a
// correct Open keeps both whole ones and cuts only the partial tail; under
// DefectCutLastTxn it also loses the second, synced one (its raft entry,
// hard state and rows), durably: the file is cut there too. A file that
// ends in a whole transaction is left alone either way.
func TestCutLastTxnLosesTheSyncedTransaction(t *testing.T) {
	m := vfs.NewMem()
	s := openMem(t, m)
	for off := uint64(1); off <= 3; off++ {
		mustCommit(t, s, fullBatch(scopeOf("a", 0), 2, off))
	}
	full, err := vfs.ReadAll(m, "node1/"+FileName)
	if err != nil {
		t.Fatal(err)
	}
	partial := full[:len(full)-2*commitFrameBytes] // the third's frames, no marker
	for _, c := range []struct {
		name     string
		file     []byte
		defects  Defects
		wantLast uint64
	}{
		{"correct, partial tail", partial, 0, 2},
		{"defect, partial tail", partial, DefectCutLastTxn, 1},
		{"defect, whole file", full, DefectCutLastTxn, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := vfs.NewMem()
			writeStoreFile(t, fs, c.file)
			for reopen, d := range []Defects{c.defects, 0} { // the second open reads what the first left durably
				s, err := Open(Options{FS: fs, Dir: "node1", Defects: d})
				if err != nil {
					t.Fatal(err)
				}
				last, _ := s.RaftStorage(2).LastIndex()
				pos, _ := s.PositionGet(scopeOf("a", 0))
				if last != c.wantLast || s.Stats().Transactions != c.wantLast || pos.NextOffset != c.wantLast+1 {
					t.Fatalf("open %d: last index %d, %d transactions, next offset %d; want %d, %d, %d",
						reopen, last, s.Stats().Transactions, pos.NextOffset, c.wantLast, c.wantLast, c.wantLast+1)
				}
				s.Close()
			}
		})
	}
}

// writeStoreFile writes content as the store file of directory node1.
func writeStoreFile(t *testing.T, fs vfs.FS, content []byte) {
	t.Helper()
	if err := fs.MkdirAll("node1"); err != nil {
		t.Fatal(err)
	}
	f, err := fs.Create("node1/" + FileName)
	if err == nil {
		_, err = f.Write(content)
	}
	if err != nil {
		t.Fatal(err)
	}
}
