package vfs

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"pgregory.net/rapid"
)

// fileModel is what one Mem file must hold, kept as two plain slices: the
// bytes now and the bytes a LoseUnsynced crash would keep.
type fileModel struct{ cur, synced []byte }

func (f *fileModel) unsynced() int {
	if len(f.cur) >= len(f.synced) && bytes.Equal(f.cur[:len(f.synced)], f.synced) {
		return len(f.cur) - len(f.synced)
	}
	return len(f.cur)
}

// TestMemFileMatchesAPlainSliceModel: writes (some larger than a chunk),
// syncs, truncations, bit flips and crashes under each policy leave a Mem
// file holding what two plain slices say, read whole or at any offset,
// with the same unsynced count. The chunks are invisible.
func TestMemFileMatchesAPlainSliceModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := NewMem()
		f, err := m.Create("f")
		if err != nil {
			t.Fatal(err)
		}
		if err := m.SyncDir("."); err != nil {
			t.Fatal(err)
		}
		var want fileModel
		var written byte
		for step := range rapid.IntRange(1, 40).Draw(t, "steps") {
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op <= 3:
				n := rapid.OneOf(rapid.IntRange(0, 600), rapid.IntRange(chunkBytes-300, 2*chunkBytes+300)).Draw(t, "write")
				p := make([]byte, n)
				for i := range p {
					written++
					p[i] = written
				}
				if _, err := f.Write(p); err != nil {
					t.Fatalf("step %d: write: %v", step, err)
				}
				want.cur = append(want.cur, p...)
			case op <= 5:
				if err := f.Sync(); err != nil {
					t.Fatalf("step %d: sync: %v", step, err)
				}
				want.synced = bytes.Clone(want.cur)
			case op == 6:
				n := rapid.IntRange(0, len(want.cur)+chunkBytes/2).Draw(t, "truncate")
				if err := f.Truncate(int64(n)); err != nil {
					t.Fatalf("step %d: truncate: %v", step, err)
				}
				if n <= len(want.cur) {
					want.cur = bytes.Clone(want.cur[:n])
				} else {
					want.cur = append(want.cur, make([]byte, n-len(want.cur))...)
				}
			case op == 7:
				if len(want.cur) == 0 {
					continue
				}
				off := rapid.IntRange(0, len(want.cur)-1).Draw(t, "corrupt")
				if err := m.CorruptByte("f", int64(off), 0x5a); err != nil {
					t.Fatalf("step %d: corrupt: %v", step, err)
				}
				want.cur[off] ^= 0x5a
				if off < len(want.synced) {
					want.synced[off] ^= 0x5a
				}
			default:
				switch rapid.IntRange(0, 2).Draw(t, "policy") {
				case 0:
					m.Crash(LoseUnsynced)
					want.cur = bytes.Clone(want.synced)
				case 1:
					m.Crash(KeepUnsynced)
				default:
					keep := rapid.IntRange(0, 300).Draw(t, "sectors")
					m.Crash(TornTail(func(string, int) int { return keep }))
					if len(want.cur) > len(want.synced) && bytes.Equal(want.cur[:len(want.synced)], want.synced) {
						first, last := len(want.synced)/SectorBytes, (len(want.cur)-1)/SectorBytes
						n := min(keep, last-first+1)
						want.cur = bytes.Clone(want.cur[:min(len(want.cur), max(len(want.synced), (first+n)*SectorBytes))])
					} else {
						want.cur = bytes.Clone(want.synced)
					}
				}
				want.synced = bytes.Clone(want.cur)
				if f, err = m.Open("f"); err != nil {
					t.Fatalf("step %d: reopen after a crash: %v", step, err)
				}
			}
			got, err := ReadAll(m, "f")
			if err != nil || !bytes.Equal(got, want.cur) {
				t.Fatalf("step %d: file holds %d bytes (%v), want %d", step, len(got), err, len(want.cur))
			}
			if u := m.UnsyncedBytes("f"); u != want.unsynced() {
				t.Fatalf("step %d: %d unsynced bytes, want %d", step, u, want.unsynced())
			}
			if len(want.cur) > 0 {
				off := rapid.IntRange(0, len(want.cur)-1).Draw(t, "readAt")
				p := make([]byte, rapid.IntRange(1, 2*chunkBytes).Draw(t, "readLen"))
				n, err := f.ReadAt(p, int64(off))
				wantN := min(len(p), len(want.cur)-off)
				if n != wantN || !bytes.Equal(p[:n], want.cur[off:off+n]) || (n < len(p)) != (err == io.EOF) {
					t.Fatalf("step %d: ReadAt(%d bytes at %d) = %d, %v; want %d", step, len(p), off, n, err, wantN)
				}
			}
		}
	})
}

// TestGrowingFileIsNotCopied: appending a megabyte in 100-byte writes
// allocates about the megabyte itself, not the sum of every doubling (a
// contiguous file that doubles allocates about twice what it holds).
func TestGrowingFileIsNotCopied(t *testing.T) {
	m := NewMem()
	f, _ := m.Create("wal")
	rec := make([]byte, 100)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10_000 {
		if _, err := f.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 1_100_000 {
		t.Fatalf("appending 1,000,000 bytes allocated %d bytes", got)
	}
}
