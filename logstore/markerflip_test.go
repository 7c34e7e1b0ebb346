package logstore

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/vfs"
)

// This file answers one question about recovery: can a flipped bit in the
// last synced (acknowledged) transaction pass for a torn tail and be
// silently cut? A torn tail can only be bytes that were never synced: the
// writer appends a transaction's frames and both marker copies in one
// write and acknowledges after one fsync, so a crash tears only the
// transaction being written. A flipped bit in synced bytes must therefore
// be refused as corruption, or repaired with the transaction kept.

// The layout the package doc states, written out here rather than taken
// from the code under test: a commit frame is a 9-byte frame header (crc32c,
// kind, length) and a 20-byte payload, its kind byte sits at offset 4 and
// reads 8 in format version 2, and a transaction ends with two identical
// copies of it.
const (
	specMarkerBytes    = 9 + 20
	specCommitKindByte = 8
)

// twoTxnFile is a store file of two committed transactions and the offset
// where the second begins; the test checks the layout against the spec.
func twoTxnFile(t *testing.T) (file []byte, secondAt int, want string) {
	t.Helper()
	m := vfs.NewMem()
	s := openMem(t, m)
	mustCommit(t, s, fullBatch(scopeOf("acme", 0), 1, 1))
	secondAt = int(s.Stats().FileBytes)
	mustCommit(t, s, fullBatch(scopeOf("acme", 0), 1, 2))
	want = dump(s)
	s.Close()
	file, err := vfs.ReadAll(m, "node1/"+FileName)
	if err != nil {
		t.Fatal(err)
	}
	first, second := file[len(file)-2*specMarkerBytes:len(file)-specMarkerBytes], file[len(file)-specMarkerBytes:]
	if string(first) != string(second) || first[4] != specCommitKindByte || len(file)-secondAt <= 2*specMarkerBytes {
		t.Fatalf("the file does not end with a transaction sealed by two identical commit frames: % x", file[secondAt:])
	}
	return file, secondAt, want
}

// openFile opens a store over exactly the bytes file, synced, and returns
// the file system too.
func openFile(t *testing.T, file []byte) (*Store, *vfs.Mem, error) {
	t.Helper()
	fs := vfs.NewMem()
	if err := fs.MkdirAll("node1"); err != nil {
		t.Fatal(err)
	}
	f, err := fs.Create("node1/" + FileName)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(file); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(Options{FS: fs, Dir: "node1"})
	return s, fs, err
}

// flipVerdict opens file with the bits of mask flipped at byte at, where
// at lies in a synced transaction that file's store acknowledged, and
// returns an error when recovery lost that transaction silently: it opened
// without an ErrCorrupt and without the transaction. want is the store's
// dump with every transaction in, and txns how many there are.
func flipVerdict(t *testing.T, file []byte, at int, mask byte, want string, txns uint64) error {
	damaged := append([]byte(nil), file...)
	damaged[at] ^= mask
	s, _, err := openFile(t, damaged)
	switch {
	case errors.Is(err, ErrCorrupt):
		if !strings.Contains(err.Error(), FileName+" at byte ") {
			return fmt.Errorf("flip %02x at byte %d: the refusal names no offset: %v", mask, at, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("flip %02x at byte %d: open failed without ErrCorrupt: %v", mask, at, err)
	}
	rec := s.Recovery()
	if s.Stats().Transactions != txns || dump(s) != want {
		return fmt.Errorf("flip %02x at byte %d: recovery %s cut %d bytes and kept %d of %d acknowledged transactions, reporting no corruption",
			mask, at, rec.Kind, rec.CutBytes, s.Stats().Transactions, txns)
	}
	return nil
}

// TestEveryFlipInTheLastTransactionIsCaught flips every bit of the last
// acknowledged transaction, one at a time: in its frames and in the first
// copy of its commit marker (the suspect range) recovery must refuse the
// file as corrupt; in the second copy it must keep the transaction,
// report the copy restored and write it back. Never may it call the damage
// a torn tail and cut the transaction.
func TestEveryFlipInTheLastTransactionIsCaught(t *testing.T) {
	file, secondAt, want := twoTxnFile(t)
	copyAt := len(file) - specMarkerBytes
	for at := secondAt; at < len(file); at++ {
		for bit := range 8 {
			mask := byte(1) << bit
			if err := flipVerdict(t, file, at, mask, want, 2); err != nil {
				t.Fatal(err)
			}
			if at < copyAt {
				damaged := append([]byte(nil), file...)
				damaged[at] ^= mask
				if _, _, err := openFile(t, damaged); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("flip %02x at byte %d (before the marker's copy at %d): %v, want ErrCorrupt", mask, at, copyAt, err)
				}
				continue
			}
			sealRestoredIntact(t, file, at, mask)
		}
	}
}

// sealRestoredIntact opens file flipped at byte at of the marker's second
// copy and requires the copy named restored and rewritten byte for byte.
func sealRestoredIntact(t *testing.T, file []byte, at int, mask byte) {
	t.Helper()
	damaged := append([]byte(nil), file...)
	damaged[at] ^= mask
	s, fs, err := openFile(t, damaged)
	if err != nil {
		t.Fatalf("flip %02x at byte %d of the marker's copy: %v", mask, at, err)
	}
	if rec := s.Recovery(); rec.Kind != RecoverySealRestored || rec.CutBytes != specMarkerBytes {
		t.Fatalf("flip %02x at byte %d of the marker's copy: recovery %s cut %d, want seal-restored cut %d", mask, at, rec.Kind, rec.CutBytes, specMarkerBytes)
	}
	raw, err := vfs.ReadAll(fs, s.Name())
	if err != nil || string(raw) != string(file) {
		t.Fatalf("flip %02x at byte %d: the file after recovery is not the undamaged file (%v)", mask, at, err)
	}
}

// TestFlipVerdictHasTeeth: with a single marker copy (the layout before the
// copy was added: the file ends after the first copy, which is also what a
// crash between the copies leaves) a flip in the marker reads as a torn
// tail and the transaction is cut without an error. flipVerdict must call
// that silent loss.
func TestFlipVerdictHasTeeth(t *testing.T) {
	file, _, want := twoTxnFile(t)
	single := file[:len(file)-specMarkerBytes]
	at := len(single) - specMarkerBytes + 12 // inside the marker's payload
	err := flipVerdict(t, single, at, 0x01, want, 2)
	if err == nil || !strings.Contains(err.Error(), "recovery torn") {
		t.Fatalf("a single-copy marker's flip: %v, want silent loss reported as a torn recovery", err)
	}
}
