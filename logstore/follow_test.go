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

// TestFollowerKeepsOnlyItsTail: a follower of a long file drops the bytes
// it replayed (it holds far less than the file), still holds what the
// store holds after every follow, and names damage past the dropped bytes
// at the same file offset as a follower that read the file whole.
func TestFollowerKeepsOnlyItsTail(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	f := NewFollower("node1")
	name := "node1/" + FileName
	for off := uint64(1); off <= 1200; off++ {
		mustCommit(t, s, fullBatch(scopeOf("t", uint32(off%3)), 1, off))
		if off%10 != 0 {
			continue
		}
		if err := f.Follow(fs); err != nil {
			t.Fatalf("after commit %d: %v", off, err)
		}
		if off%200 == 0 {
			if got, want := dump(f.Store()), dump(s); got != want {
				t.Fatalf("after commit %d the follower holds\n%s\nthe store\n%s", off, got, want)
			}
		}
	}
	size := fileSize(t, fs, name)
	if size < 4*followKeepBytesMin {
		t.Fatalf("file of %d bytes: too short to show dropping", size)
	}
	if f.base < int(size)/2 || cap(f.buf) > int(size)/4 {
		t.Fatalf("file of %d bytes: the follower keeps bytes from %d in a buffer of %d", size, f.base, cap(f.buf))
	}
	// Damage the first of ten more transactions, past every dropped byte.
	at := size + 12
	for off := uint64(1201); off <= 1210; off++ {
		mustCommit(t, s, fullBatch(scopeOf("t", uint32(off%3)), 1, off))
	}
	if err := fs.CorruptByte(name, at, 0x10); err != nil {
		t.Fatal(err)
	}
	err := f.Follow(fs)
	whole := NewFollower("node1").Follow(fs)
	if !errors.Is(err, ErrCorrupt) || !errors.Is(whole, ErrCorrupt) || err.Error() != whole.Error() {
		t.Fatalf("damage at byte %d: the trimmed follower says %v, a whole read says %v", at, err, whole)
	}
}

// fileSize is the durable size of name in fs.
func fileSize(t *testing.T, fs *vfs.Mem, name string) int64 {
	t.Helper()
	_, size, err := fs.DurableReadAt(name, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return size
}

// TestFollowerKeepsWhatARewriteRewrote: a follower told of a rewrite
// whose file is the rewrite of what it holds keeps what it holds (the
// same store, the same generation) and reads on past it; told of a
// "rewrite" that changed a row (the file of a store whose last record's
// event differs, as long, put in its place), or lost rows (a shorter
// file), it reads the new file from its start and holds what it says.
func TestFollowerKeepsWhatARewriteRewrote(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	f := NewFollower("node1")
	for off := uint64(1); off <= 20; off++ {
		mustCommit(t, s, fullBatch(scopeOf("t", uint32(off%3)), 1, off))
	}
	if err := f.Follow(fs); err != nil {
		t.Fatal(err)
	}
	held, gen := f.Store(), f.Generation()
	if err := s.Rewrite(); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, s, fullBatch(scopeOf("t", 0), 1, 21))
	if err := f.FollowRewritten(fs); err != nil {
		t.Fatal(err)
	}
	if f.Store() != held || f.Generation() != gen || dump(f.Store()) != dump(s) {
		t.Fatalf("after a faithful rewrite: same store %v, generation %d then %d, holds what the store holds %v",
			f.Store() == held, gen, f.Generation(), dump(f.Store()) == dump(s))
	}

	for _, commits := range []uint64{21, 20} {
		// Another store's rewritten file renamed over this one's: its
		// commit 21 carries another event of the same length, or it has
		// no commit 21.
		other := vfs.NewMem()
		o := openMem(t, other)
		for off := uint64(1); off <= commits; off++ {
			b := fullBatch(scopeOf("t", uint32(off%3)), 1, off)
			if off == 21 {
				b.Log[0].Record.Payload = []byte("event-99")
			}
			mustCommit(t, o, b)
		}
		if err := o.Rewrite(); err != nil {
			t.Fatal(err)
		}
		bad, err := vfs.ReadAll(other, "node1/"+FileName)
		if err != nil {
			t.Fatal(err)
		}
		w, err := fs.Create("node1/" + FileName + ".bad")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(bad); err != nil || w.Sync() != nil || fs.Rename("node1/"+FileName+".bad", "node1/"+FileName) != nil || fs.SyncDir("node1") != nil {
			t.Fatal("putting the bad file in place failed")
		}
		gen := f.Generation()
		if err := f.FollowRewritten(fs); err != nil {
			t.Fatal(err)
		}
		if f.Generation() == gen || dump(f.Store()) != dump(o) {
			t.Fatalf("%d commits: after a bad rewrite the follower kept generation %d (%v) or does not hold what the file says:\n%s\nthe file:\n%s",
				commits, gen, f.Generation() == gen, dump(f.Store()), dump(o))
		}
	}
}
