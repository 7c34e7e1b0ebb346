package logstore

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/vfs"
)

func TestCommitSurvivesReopen(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	sc := scopeOf("acme", 0)
	for off := uint64(1); off <= 3; off++ {
		mustCommit(t, s, fullBatch(sc, 7, off))
	}
	before := dump(s)
	if got := s.Counts(); got != (RowCounts{Log: 3, State: 1, Position: 1, Outbox: 3, ConsumerGroup: 1}) {
		t.Fatalf("counts %+v", got)
	}
	fs.Crash(vfs.LoseUnsynced)
	s2 := openMem(t, fs)
	if after := dump(s2); after != before {
		t.Fatalf("reopened store differs:\n%s\nwant:\n%s", after, before)
	}
	v, ok := s2.StateGet(sc, "k")
	if !ok || string(v.Value) != "v3" || v.Version != 3 {
		t.Fatalf("state k = %+v %v, want v3@3", v, ok)
	}
	if got := s2.AppliedIndex(7); got != 3 {
		t.Fatalf("group 7 applied index %d after reopen, want 3 (the last commit's)", got)
	}
	// The last commit wrote "workers" at position 3, one lease on offset 3.
	want := []statemachine.GroupState{{Name: "workers", CommittedOffset: 3, DeliverNextOffset: 4, Leases: []statemachine.Lease{{Offset: 3, ExpiryNs: 3000}}}}
	if got := s2.ConsumerGroupScan(sc); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("consumer groups after reopen %+v, want %+v", got, want)
	}
	if err := s2.CheckStateMatchesLog(); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, s2, fullBatch(sc, 7, 4))
	if n := s2.Counts().Log; n != 4 {
		t.Fatalf("log rows after commit on reopened store: %d", n)
	}
}

func TestCollisionAcrossTenants(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	a, b := scopeOf("tenant-a", 3), scopeOf("tenant-b", 3)
	ba := fullBatch(a, 1, 1)
	ba.Outbox[0].Intent.Data = []byte("for-a")
	bb := fullBatch(b, 2, 1)
	bb.Outbox[0].Intent.Data = []byte("for-b")
	mustCommit(t, s, ba)
	mustCommit(t, s, bb)
	fs.Crash(vfs.LoseUnsynced)
	s2 := openMem(t, fs)
	oa, ob := s2.OutboxScan(a), s2.OutboxScan(b)
	if len(oa) != 1 || len(ob) != 1 {
		t.Fatalf("outbox rows after reopen: %d in %s, %d in %s; want 1 each", len(oa), a, len(ob), b)
	}
	if oa[0].Offset != 1 || ob[0].Offset != 1 || string(oa[0].Intent.Data) != "for-a" || string(ob[0].Intent.Data) != "for-b" {
		t.Fatalf("outbox entries not distinct: %+v / %+v", oa[0], ob[0])
	}
	if n := s2.Counts().Outbox; n != 2 {
		t.Fatalf("outbox row count %d, want 2", n)
	}
}

func TestUncommittedTailIsDiscarded(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	sc := scopeOf("acme", 0)
	mustCommit(t, s, fullBatch(sc, 1, 1))
	want := dump(s)
	size, _ := s.f.Size()
	// A second transaction whose marker never made it: frames but no marker.
	raftFrame, tables, err := encodeTxn(fullBatch(sc, 1, 2))
	if err != nil {
		t.Fatal(err)
	}
	s.f.Write(raftFrame)
	s.f.Write(tables[0])
	s.f.Write(tables[1][:5])
	s.f.Sync()
	s.Close()
	s2 := openMem(t, fs)
	if got := dump(s2); got != want {
		t.Fatalf("after torn tail:\n%s\nwant:\n%s", got, want)
	}
	if got, _ := s2.f.Size(); got != size {
		t.Fatalf("file is %d bytes after recovery, want it truncated to %d", got, size)
	}
	mustCommit(t, s2, fullBatch(sc, 1, 2))
	s2.Close()
	s3 := openMem(t, fs)
	if n := s3.Counts().Log; n != 2 {
		t.Fatalf("log rows %d after committing over a truncated tail, want 2", n)
	}
}

func TestCorruptionBeforeTailIsAnError(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	sc := scopeOf("acme", 0)
	mustCommit(t, s, fullBatch(sc, 1, 1))
	mid, _ := s.f.Size()
	mustCommit(t, s, fullBatch(sc, 1, 2))
	mustCommit(t, s, fullBatch(sc, 1, 3))
	s.Close()
	if err := fs.CorruptByte(s.Name(), mid+20, 0x40); err != nil {
		t.Fatal(err)
	}
	_, err := Open(Options{FS: fs, Dir: "node1"})
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("open after corrupting byte %d: %v, want ErrCorrupt", mid+20, err)
	}
	if !strings.Contains(err.Error(), "node1/logstore.wal at byte") {
		t.Fatalf("error does not name the file and offset: %v", err)
	}
}

func TestInvalidBatchWritesNothing(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	sc := scopeOf("acme", 0)
	mustCommit(t, s, fullBatch(sc, 1, 1))
	size, _ := s.f.Size()
	cases := map[string]*Batch{
		"overwrite log row": fullBatch(sc, 1, 1),
		"empty tenant":      fullBatch(felix.Scope{Namespace: "n", Stream: "s"}, 1, 2),
		"gap in raft log":   {Groups: []GroupWrite{{Group: 1, Entries: []*raftpb.Entry{entry(9, 1, "x")}}}},
		"zero write kind":   {State: []StateRow{{Scope: sc, Key: "k"}}},
		"bad record":        {Log: []LogRow{{Scope: sc, Offset: 5}}},
	}
	for _, name := range []string{"overwrite log row", "empty tenant", "gap in raft log", "zero write kind", "bad record"} {
		err := s.Commit(cases[name])
		if !errors.Is(err, ErrInvalidBatch) {
			t.Errorf("%s: %v, want ErrInvalidBatch", name, err)
		}
	}
	if got, _ := s.f.Size(); got != size {
		t.Fatalf("refused batches wrote %d bytes", got-size)
	}
	mustCommit(t, s, fullBatch(sc, 1, 2))
}

// failingSync wraps a vfs.FS so that every File.Sync fails.
type failingSync struct{ vfs.FS }
type failingSyncFile struct{ vfs.File }

func (f failingSync) Open(name string) (vfs.File, error) {
	h, err := f.FS.Open(name)
	return failingSyncFile{h}, err
}
func (failingSyncFile) Sync() error { return errors.New("injected fsync failure") }

func TestFailedSyncFailsTheStore(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	s.Close()
	s, err := Open(Options{FS: failingSync{fs}, Dir: "node1"})
	if err != nil {
		t.Fatal(err)
	}
	sc := scopeOf("acme", 0)
	if err := s.Commit(fullBatch(sc, 1, 1)); !errors.Is(err, ErrFailed) {
		t.Fatalf("commit with failing fsync: %v, want ErrFailed", err)
	}
	if n := s.Counts().Log; n != 0 {
		t.Fatalf("a commit whose fsync failed is visible: %d log rows", n)
	}
	if err := s.Commit(fullBatch(sc, 1, 2)); !errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "injected fsync failure") {
		t.Fatalf("second commit on a failed store: %v, want ErrFailed naming the cause", err)
	}
}

func TestRaftStorageMatchesMemoryStorage(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	ms := raft.NewMemoryStorage()
	snap := &raftpb.Snapshot{Metadata: &raftpb.SnapshotMetadata{Index: new(uint64(10)), Term: new(uint64(2)),
		ConfState: &raftpb.ConfState{Voters: []uint64{1, 2, 3}}}, Data: []byte("snap")}
	steps := []GroupWrite{
		{Group: 5, Snapshot: snap, HardState: &raftpb.HardState{Term: new(uint64(2)), Commit: new(uint64(10))}},
		{Group: 5, Entries: []*raftpb.Entry{entry(11, 2, "a"), entry(12, 2, "b"), entry(13, 2, "c")}},
		{Group: 5, Entries: []*raftpb.Entry{entry(12, 3, "B"), entry(13, 3, "C"), entry(14, 3, "D")}},
		{Group: 5, Entries: []*raftpb.Entry{entry(13, 4, "x")}, HardState: &raftpb.HardState{Term: new(uint64(4)), Vote: new(uint64(2)), Commit: new(uint64(12))}},
		{Group: 5, Compact: &Compaction{Snapshot: &raftpb.Snapshot{Metadata: &raftpb.SnapshotMetadata{Index: new(uint64(12)), Term: new(uint64(3))}, Data: []byte("s12")}}},
		{Group: 5, Entries: []*raftpb.Entry{entry(14, 4, "y")}},
	}
	for i := range steps {
		w := steps[i]
		mustCommit(t, s, &Batch{Groups: []GroupWrite{w}})
		if w.Snapshot != nil {
			ms.ApplySnapshot(w.Snapshot)
		}
		ms.Append(w.Entries)
		if w.HardState != nil {
			ms.SetHardState(w.HardState)
		}
		if w.Compact != nil {
			ci := w.Compact.Snapshot.GetMetadata().GetIndex()
			ms.CreateSnapshot(ci, nil, w.Compact.Snapshot.Data)
			ms.Compact(ci)
		}
		compareStorage(t, i, s.RaftStorage(5), ms)
	}
	fs.Crash(vfs.LoseUnsynced)
	s2 := openMem(t, fs)
	compareStorage(t, len(steps), s2.RaftStorage(5), ms)
	if ids := s2.Groups(); len(ids) != 1 || ids[0] != 5 {
		t.Fatalf("groups after reopen: %v", ids)
	}
	if _, err := s2.RaftStorage(5).Entries(12, 13, 1<<20); !errors.Is(err, raft.ErrCompacted) {
		t.Fatalf("entries below the compaction point: %v, want ErrCompacted", err)
	}
	err := s2.Commit(&Batch{Groups: []GroupWrite{{Group: 5, Snapshot: snap}}})
	if !errors.Is(err, raft.ErrSnapOutOfDate) {
		t.Fatalf("applying an older snapshot: %v, want ErrSnapOutOfDate", err)
	}
	empty := s2.RaftStorage(99)
	compareStorage(t, -1, empty, raft.NewMemoryStorage())
}

func compareStorage(t *testing.T, step int, got raft.Storage, want *raft.MemoryStorage) {
	t.Helper()
	gf, _ := got.FirstIndex()
	wf, _ := want.FirstIndex()
	gl, _ := got.LastIndex()
	wl, _ := want.LastIndex()
	if gf != wf || gl != wl {
		t.Fatalf("step %d: first/last %d/%d, MemoryStorage %d/%d", step, gf, gl, wf, wl)
	}
	for i := gf - 1; i <= gl+1; i++ {
		gt, ge := got.Term(i)
		wt, we := want.Term(i)
		if gt != wt || !errors.Is(ge, we) && ge != we {
			t.Fatalf("step %d: term(%d) = %d,%v; MemoryStorage %d,%v", step, i, gt, ge, wt, we)
		}
	}
	for _, maxSize := range []uint64{0, 10, 1 << 20} {
		ge, gerr := got.Entries(gf, gl+1, maxSize)
		we, werr := want.Entries(wf, wl+1, maxSize)
		if !errors.Is(gerr, werr) && gerr != werr || len(ge) != len(we) {
			t.Fatalf("step %d: entries(max %d) = %d,%v; MemoryStorage %d,%v", step, maxSize, len(ge), gerr, len(we), werr)
		}
		for i := range ge {
			if string(marshal(ge[i])) != string(marshal(we[i])) {
				t.Fatalf("step %d: entry %d differs: %v vs %v", step, i, ge[i], we[i])
			}
		}
	}
	ghs, gcs, _ := got.InitialState()
	whs, wcs, _ := want.InitialState()
	if string(marshal(ghs)) != string(marshal(whs)) || string(marshal(gcs)) != string(marshal(wcs)) {
		t.Fatalf("step %d: initial state %v %v; MemoryStorage %v %v", step, ghs, gcs, whs, wcs)
	}
	gs, _ := got.Snapshot()
	ws, _ := want.Snapshot()
	if gs.GetMetadata().GetIndex() != ws.GetMetadata().GetIndex() || gs.GetMetadata().GetTerm() != ws.GetMetadata().GetTerm() || string(gs.Data) != string(ws.Data) {
		t.Fatalf("step %d: snapshot %v; MemoryStorage %v", step, gs, ws)
	}
}

func TestRewriteKeepsContentAndShrinks(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	sc := scopeOf("acme", 0)
	for off := uint64(1); off <= 20; off++ {
		b := fullBatch(sc, 1, off)
		if off > 1 {
			b.Outbox = append(b.Outbox, OutboxRow{Kind: WriteDelete, Scope: sc, Offset: off - 1})
		}
		mustCommit(t, s, b)
	}
	mustCommit(t, s, &Batch{Groups: []GroupWrite{{Group: 1, Compact: &Compaction{Snapshot: &raftpb.Snapshot{
		Metadata: &raftpb.SnapshotMetadata{Index: new(uint64(15)), Term: new(uint64(1))}, Data: []byte("s15")}}}}})
	before, sizeBefore := dump(s), s.Stats().FileBytes
	if err := s.Rewrite(); err != nil {
		t.Fatal(err)
	}
	if got := dump(s); got != before {
		t.Fatalf("rewrite changed the content:\n%s\nwant:\n%s", got, before)
	}
	if st := s.Stats(); st.FileBytes >= sizeBefore/2 {
		t.Fatalf("rewrite left %d of %d bytes", st.FileBytes, sizeBefore)
	}
	mustCommit(t, s, fullBatch(sc, 1, 21))
	want := dump(s)
	fs.Crash(vfs.LoseUnsynced)
	s2 := openMem(t, fs)
	if got := dump(s2); got != want {
		t.Fatalf("after rewrite, commit and crash:\n%s\nwant:\n%s", got, want)
	}
	if names := fs.Names(); len(names) != 1 {
		t.Fatalf("files after a rewrite: %v", names)
	}
}

func TestRewriteLeftoverIsRemoved(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	mustCommit(t, s, fullBatch(scopeOf("acme", 0), 1, 1))
	want := dump(s)
	if _, _, _, err := s.writeRewrite(s.name + rewriteSuffix); err != nil {
		t.Fatal(err)
	}
	fs.SyncDir("node1")
	fs.Crash(vfs.LoseUnsynced)
	s2 := openMem(t, fs)
	if got := dump(s2); got != want {
		t.Fatalf("store after a crashed rewrite:\n%s\nwant:\n%s", got, want)
	}
	if names := fs.Names(); len(names) != 1 {
		t.Fatalf("the crashed rewrite's file was not removed: %v", names)
	}
}

// TestStateMatchesLogHasTeeth plants a state row the log does not imply,
// and a stale version, and requires the check to name each.
func TestStateMatchesLogHasTeeth(t *testing.T) {
	s := openMem(t, vfs.NewMem())
	sc := scopeOf("acme", 0)
	mustCommit(t, s, fullBatch(sc, 1, 1))
	mustCommit(t, s, fullBatch(sc, 1, 2))
	if err := s.CheckStateMatchesLog(); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, s, &Batch{State: []StateRow{{Kind: WritePut, Scope: sc, Key: "k", Value: []byte("v2"), Version: 1}}})
	if err := s.CheckStateMatchesLog(); err == nil || !strings.Contains(err.Error(), `"k" = "v2"@1`) {
		t.Fatalf("stale version not caught: %v", err)
	}
	other := scopeOf("acme", 7)
	mustCommit(t, s, &Batch{State: []StateRow{{Kind: WritePut, Scope: other, Key: "orphan", Value: []byte("x"), Version: 3}}})
	if err := s.CheckStateMatchesLog(other); err == nil || !strings.Contains(err.Error(), "does not imply") {
		t.Fatalf("orphan state row not caught: %v", err)
	}
}

func TestClosedStoreRefusesCommit(t *testing.T) {
	s := openMem(t, vfs.NewMem())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(fullBatch(scopeOf("acme", 0), 1, 1)); !errors.Is(err, ErrClosed) {
		t.Fatalf("commit after close: %v, want ErrClosed", err)
	}
	if err := s.Rewrite(); !errors.Is(err, ErrClosed) {
		t.Fatalf("rewrite after close: %v, want ErrClosed", err)
	}
	if err := s.Close(); err == nil {
		t.Fatal("second close succeeded")
	}
}

func TestOpenOnRealDirectoryTree(t *testing.T) {
	osfs, err := vfs.NewOS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(Options{FS: osfs, Dir: "a/b/node1"})
	if err != nil {
		t.Fatal(err)
	}
	mustCommit(t, s, fullBatch(scopeOf("acme", 0), 1, 1))
	s.Close()
	s2, err := Open(Options{FS: osfs, Dir: "a/b/node1"})
	if err != nil {
		t.Fatal(err)
	}
	if n := s2.Counts(); n != (RowCounts{Log: 1, State: 1, Position: 1, Outbox: 1, ConsumerGroup: 1}) {
		t.Fatalf("counts after reopen on the real filesystem: %+v", n)
	}
}

func TestZeroFilledNewFileIsFresh(t *testing.T) {
	fs := vfs.NewMem()
	fs.MkdirAll("node1")
	f, _ := fs.Create("node1/" + FileName)
	f.Write(make([]byte, 700))
	f.Sync()
	fs.SyncDir("node1")
	s := openMem(t, fs)
	mustCommit(t, s, fullBatch(scopeOf("acme", 0), 1, 1))
	s.Close()
	if n := openMem(t, fs).Counts().Log; n != 1 {
		t.Fatalf("log rows %d after recreating a zero-filled file", n)
	}
}

// TestAppliedIndexRefusals: an applied index never goes back, never names
// an index the group's log lacks, and applied entries are never cut; a
// refused batch changes nothing.
func TestAppliedIndexRefusals(t *testing.T) {
	s := openMem(t, vfs.NewMem())
	mustCommit(t, s, fullBatch(scopeOf("acme", 0), 3, 1))
	mustCommit(t, s, fullBatch(scopeOf("acme", 0), 3, 2))
	for _, tc := range []struct {
		applied uint64
		want    string
	}{
		{1, "below the stored 2"},
		{3, "would end at index 2, below its applied index 3"},
	} {
		err := s.Commit(&Batch{Groups: []GroupWrite{{Group: 3, AppliedIndex: tc.applied}}})
		if !errors.Is(err, ErrInvalidBatch) || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("applied index %d: %v, want ErrInvalidBatch containing %q", tc.applied, err, tc.want)
		}
	}
	// Replacing the applied entry 2 (same index, another term) cuts it.
	err := s.Commit(&Batch{Groups: []GroupWrite{{Group: 3, Entries: []*raftpb.Entry{entry(2, 5, "other")}}}})
	if !errors.Is(err, ErrInvalidBatch) || !strings.Contains(err.Error(), "would replace applied entries (applied index 2)") {
		t.Fatalf("replacing an applied entry: %v, want ErrInvalidBatch", err)
	}
	if got := s.AppliedIndex(3); got != 2 {
		t.Fatalf("applied index %d after refused batches, want 2", got)
	}
	mustCommit(t, s, &Batch{Groups: []GroupWrite{{Group: 3, AppliedIndex: 0}}})
	if got := s.AppliedIndex(3); got != 2 {
		t.Fatalf("applied index 0 in a write changed the stored one to %d", got)
	}
}

// TestConsumerGroupRowRefusals: rows without a name, with an oversized one
// or too many leases are refused whole.
func TestConsumerGroupRowRefusals(t *testing.T) {
	s := openMem(t, vfs.NewMem())
	sc := scopeOf("acme", 0)
	for _, tc := range []struct {
		g    statemachine.GroupState
		want string
	}{
		{statemachine.GroupState{}, "is empty"},
		{statemachine.GroupState{Name: strings.Repeat("x", statemachine.GroupNameLenMax+1)}, "exceeds"},
		{statemachine.GroupState{Name: "g", Leases: make([]statemachine.Lease, statemachine.LeasesPerGroupCap+1)}, "leases, more than"},
	} {
		err := s.Commit(&Batch{ConsumerGroups: []ConsumerGroupRow{{Scope: sc, Group: tc.g}}})
		if !errors.Is(err, ErrInvalidBatch) || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("group %.20q: %v, want ErrInvalidBatch containing %q", tc.g.Name, err, tc.want)
		}
	}
	if n := s.Counts().ConsumerGroup; n != 0 {
		t.Fatalf("%d consumer groups after refused batches", n)
	}
}
