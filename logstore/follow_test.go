package logstore

import (
	"errors"
	"testing"

	"github.com/felixsim/felixsim/vfs"
)

// TestFollowerReadsWhatTheStoreWrote: after every commit, a follower of
// the durable bytes holds what the store holds, through a rewrite (the
// file is replaced) and on from there; a follower started late reads it
// all at once.
func TestFollowerReadsWhatTheStoreWrote(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	f := NewFollower("node1")
	for off := uint64(1); off <= 40; off++ {
		mustCommit(t, s, fullBatch(scopeOf("t", uint32(off%3)), 1, off))
		if off == 25 {
			if err := s.Rewrite(); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Follow(fs); err != nil {
			t.Fatalf("after commit %d: %v", off, err)
		}
		if got, want := dump(f.Store()), dump(s); got != want {
			t.Fatalf("after commit %d the follower holds\n%s\nthe store\n%s", off, got, want)
		}
	}
	late := NewFollower("node1")
	if err := late.Follow(fs); err != nil || dump(late.Store()) != dump(s) {
		t.Fatalf("a late follower: %v\n%s", err, dump(late.Store()))
	}
}

// TestFollowerSeesOnlyDurableBytes: a store that never fsyncs (the
// planted defect) leaves nothing durable past its header, so its
// follower holds nothing while the store's memory holds every commit.
func TestFollowerSeesOnlyDurableBytes(t *testing.T) {
	fs := vfs.NewMem()
	s, err := Open(Options{FS: fs, Dir: "node1", Defects: DefectSkipFsync})
	if err != nil {
		t.Fatal(err)
	}
	mustCommit(t, s, fullBatch(scopeOf("t", 0), 1, 1))
	f := NewFollower("node1")
	if err := f.Follow(fs); err != nil {
		t.Fatal(err)
	}
	if n := len(f.Store().Scopes()); n != 0 || len(s.Scopes()) != 1 {
		t.Fatalf("follower holds %d scopes, the store %d; want 0 and 1", n, len(s.Scopes()))
	}
}

// TestFollowerRefusesDamage: a flipped bit in the durable bytes is an
// ErrCorrupt error, and the follower starts over.
func TestFollowerRefusesDamage(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	mustCommit(t, s, fullBatch(scopeOf("t", 0), 1, 1))
	if err := fs.CorruptByte("node1/"+FileName, int64(len(headerFrame())+12), 0x10); err != nil {
		t.Fatal(err)
	}
	f := NewFollower("node1")
	if err := f.Follow(fs); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("follow of damaged bytes: %v, want ErrCorrupt", err)
	}
	if len(f.Store().Scopes()) != 0 || f.committed != 0 {
		t.Fatal("a follower that met damage kept what it read")
	}
}
