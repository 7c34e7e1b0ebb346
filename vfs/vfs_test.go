package vfs

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// conformance runs the same script on any FS: both implementations must
// agree on everything but durability.
func conformance(t *testing.T, fsys FS) {
	require.NoError(t, fsys.MkdirAll("a/b"))
	f, err := fsys.Create("a/b/x")
	require.NoError(t, err)
	_, err = f.Write([]byte("hello "))
	require.NoError(t, err)
	_, err = f.Write([]byte("world"))
	require.NoError(t, err)
	require.NoError(t, f.Sync())
	size, err := f.Size()
	require.NoError(t, err)
	require.EqualValues(t, 11, size)
	buf := make([]byte, 5)
	_, err = f.ReadAt(buf, 6)
	require.NoError(t, err)
	require.Equal(t, "world", string(buf))
	require.NoError(t, f.Truncate(5))
	require.NoError(t, f.Close())
	require.Error(t, f.Close(), "double close must fail")

	got, err := ReadAll(fsys, "a/b/x")
	require.NoError(t, err)
	require.Equal(t, "hello", string(got))

	require.NoError(t, fsys.Rename("a/b/x", "a/b/y"))
	names, err := fsys.List("a/b")
	require.NoError(t, err)
	require.Equal(t, []string{"y"}, names)
	require.NoError(t, fsys.SyncDir("a/b"))

	_, err = fsys.Open("a/b/x")
	require.True(t, errors.Is(err, ErrNotExist), "open of a renamed-away file: %v", err)
	require.NoError(t, fsys.Remove("a/b/y"))
	_, err = fsys.Create("../escape")
	require.ErrorIs(t, err, ErrBadName)
	_, err = fsys.Create("/abs")
	require.ErrorIs(t, err, ErrBadName)
}

func TestConformanceMem(t *testing.T) { conformance(t, NewMem()) }

func TestConformanceOS(t *testing.T) {
	fsys, err := NewOS(t.TempDir())
	require.NoError(t, err)
	conformance(t, fsys)
}

func TestCrashKeepsSyncedLosesUnsynced(t *testing.T) {
	m := NewMem()
	f, err := m.Create("log")
	require.NoError(t, err)
	_, _ = f.Write([]byte("durable"))
	require.NoError(t, f.Sync())
	require.NoError(t, m.SyncDir("."))
	_, _ = f.Write([]byte("-volatile"))
	require.Equal(t, 9, m.UnsyncedBytes("log"))

	g, err := m.Create("never-dir-synced")
	require.NoError(t, err)
	_, _ = g.Write([]byte("x"))
	require.NoError(t, g.Sync())

	m.Crash(nil)
	got, err := ReadAll(m, "log")
	require.NoError(t, err)
	require.Equal(t, "durable", string(got))
	_, err = m.Open("never-dir-synced")
	require.ErrorIs(t, err, ErrNotExist, "a file whose directory entry was never synced must vanish")
	_, err = f.Write([]byte("z"))
	require.ErrorIs(t, err, ErrClosed, "a handle from before the crash must be dead")
}

func TestCrashRenameNeedsDirSync(t *testing.T) {
	m := NewMem()
	f, _ := m.Create("old")
	_, _ = f.Write([]byte("v1"))
	require.NoError(t, f.Sync())
	require.NoError(t, m.SyncDir("."))
	require.NoError(t, m.Rename("old", "new"))
	m.Crash(nil)
	names, err := m.List(".")
	require.NoError(t, err)
	require.Equal(t, []string{"old"}, names, "an unsynced rename must be undone")
}

func TestTornTailKeepsWholeSectorsOfTheTail(t *testing.T) {
	m := NewMem()
	f, _ := m.Create("log")
	_, _ = f.Write(make([]byte, 100))
	require.NoError(t, f.Sync())
	require.NoError(t, m.SyncDir("."))
	tail := make([]byte, 3*SectorBytes)
	for i := range tail {
		tail[i] = 0xAB
	}
	_, _ = f.Write(tail)
	var sawSectors int
	m.Crash(TornTail(func(_ string, n int) int { sawSectors = n; return 1 }))
	require.Equal(t, 4, sawSectors, "100+1536 bytes span sectors 0..3")
	got, err := ReadAll(m, "log")
	require.NoError(t, err)
	require.Len(t, got, SectorBytes, "the first sector of the tail (the one the synced bytes end in) survives whole")
	require.Equal(t, byte(0xAB), got[SectorBytes-1])
}

func TestKeepUnsyncedKeepsEveryWrittenByte(t *testing.T) {
	m := NewMem()
	f, _ := m.Create("log")
	_, _ = f.Write([]byte("synced"))
	require.NoError(t, f.Sync())
	require.NoError(t, m.SyncDir("."))
	_, _ = f.Write([]byte("+written"))
	m.Crash(KeepUnsynced)
	got, err := ReadAll(m, "log")
	require.NoError(t, err)
	require.Equal(t, "synced+written", string(got), "a flushed cache keeps the unsynced bytes")
	m.Crash(LoseUnsynced)
	got, _ = ReadAll(m, "log")
	require.Equal(t, "synced+written", string(got), "what a crash kept is durable from then on")
}

func TestCorruptByteFlipsDurableBits(t *testing.T) {
	m := NewMem()
	f, _ := m.Create("x")
	_, _ = f.Write([]byte{0x0F})
	require.NoError(t, f.Sync())
	require.NoError(t, m.SyncDir("."))
	require.NoError(t, m.CorruptByte("x", 0, 0xFF))
	m.Crash(nil)
	got, _ := ReadAll(m, "x")
	require.Equal(t, []byte{0xF0}, got)
	require.Error(t, m.CorruptByte("x", 5, 1))
}

func TestSyncedBytesSurviveTruncateAndRewrite(t *testing.T) {
	m := NewMem()
	f, _ := m.Create("x")
	_, _ = f.Write([]byte("abcdef"))
	require.NoError(t, f.Sync())
	require.NoError(t, m.SyncDir("."))
	require.NoError(t, f.Truncate(2))
	_, _ = f.Write([]byte("ZZZZ"))
	got, _ := ReadAll(m, "x")
	require.Equal(t, "abZZZZ", string(got))
	m.Crash(nil)
	got, _ = ReadAll(m, "x")
	require.Equal(t, "abcdef", string(got), "an unsynced truncate and rewrite must not reach the synced bytes")
}

// BenchmarkMemAppendSync appends 100 bytes and syncs, on a growing file: the
// cost must not grow with the file (Sync copies nothing).
func BenchmarkMemAppendSync(b *testing.B) {
	m := NewMem()
	f, _ := m.Create("wal")
	rec := make([]byte, 100)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_, _ = f.Write(rec)
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMemCountsWrittenBytes: every byte a Write took counts, across a
// truncate, a rewrite under a new name and a crash that loses some of them.
func TestMemCountsWrittenBytes(t *testing.T) {
	m := NewMem()
	f, err := m.Create("log")
	require.NoError(t, err)
	_, err = f.Write([]byte("hello "))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(2))
	_, err = f.Write([]byte("world"))
	require.NoError(t, err)
	g, err := m.Create("log.new")
	require.NoError(t, err)
	_, err = g.Write([]byte("abc"))
	require.NoError(t, err)
	require.NoError(t, m.Rename("log.new", "log"))
	m.Crash(nil)
	require.EqualValues(t, len("hello ")+len("world")+len("abc"), m.WrittenBytes())
	_, err = f.Write([]byte("dead handle"))
	require.ErrorIs(t, err, ErrClosed)
	require.EqualValues(t, 14, m.WrittenBytes(), "a refused write writes nothing")
}
