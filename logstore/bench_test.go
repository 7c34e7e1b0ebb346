package logstore

import (
	"fmt"
	"testing"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/vfs"
)

// benchBatch is recordsPerBatch applied records (one event, one state put,
// one outbox intent each), their raft entries and hard state, and the
// position row: what one raft Ready of a busy shard commits.
func benchBatch(sc felix.Scope, first uint64, recordsPerBatch int) *Batch {
	b := &Batch{Groups: []GroupWrite{{Group: 1}}}
	payload, value := make([]byte, 100), make([]byte, 100)
	for i := 0; i < recordsPerBatch; i++ {
		off := first + uint64(i)
		b.Groups[0].Entries = append(b.Groups[0].Entries, &raftpb.Entry{Index: new(off), Term: new(uint64(1)), Data: payload})
		rec := felix.Record{Event: felix.EventPublish, Payload: payload,
			Ops: []felix.StateOp{{Kind: felix.OpPut, Key: fmt.Sprintf("key-%d", off%64), Value: value}}}
		b.AddRecord(sc, off, rec, &Intent{Event: felix.EventPublish})
	}
	last := first + uint64(recordsPerBatch) - 1
	b.Groups[0].HardState = &raftpb.HardState{Term: new(uint64(1)), Commit: new(last)}
	b.Positions = []PositionRow{{Scope: sc, Position: Position{AppliedIndex: last, NextOffset: last + 1}}}
	return b
}

func benchCommit(b *testing.B, fs vfs.FS, recordsPerBatch int) {
	s, err := Open(Options{FS: fs, Dir: "store"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	sc := scopeOf("bench", 0)
	batches := make([]*Batch, b.N)
	for i := range batches {
		batches[i] = benchBatch(sc, uint64(i*recordsPerBatch+1), recordsPerBatch)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Commit(batches[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/sec, "fsyncs/s")
	b.ReportMetric(float64(b.N*recordsPerBatch)/sec, "records/s")
}

// BenchmarkCommitOS commits on the real filesystem (t.TempDir), one fsync
// per Commit, with 1, 8 or 64 records grouped in each Commit.
func BenchmarkCommitOS(b *testing.B) {
	for _, n := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("recordsPerFsync=%d", n), func(b *testing.B) {
			osfs, err := vfs.NewOS(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			benchCommit(b, osfs, n)
		})
	}
}

// BenchmarkCommitMem is the engine's cost without a disk (vfs.Mem).
func BenchmarkCommitMem(b *testing.B) {
	for _, n := range []int{1, 64} {
		b.Run(fmt.Sprintf("recordsPerFsync=%d", n), func(b *testing.B) {
			benchCommit(b, vfs.NewMem(), n)
		})
	}
}

// BenchmarkFailpointDisarmed is the crash hook's cost per check when no
// failpoint is enabled; Commit makes five checks.
func BenchmarkFailpointDisarmed(b *testing.B) {
	for i := 0; i < b.N; i++ {
		crashHook(i & 3)
	}
}

// benchStore is a closed store of 1000 single-record transactions, in
// one transaction if rewritten.
func benchStore(b *testing.B, rewritten bool) *vfs.Mem {
	mem := vfs.NewMem()
	s, err := Open(Options{FS: mem, Dir: "store"})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		mustCommit(b, s, benchBatch(scopeOf("bench", 0), uint64(i+1), 1))
	}
	if rewritten {
		if err := s.Rewrite(); err != nil {
			b.Fatal(err)
		}
	}
	s.Close()
	return mem
}

// BenchmarkOpenReplay replays a store of 1000 single-record transactions.
func BenchmarkOpenReplay(b *testing.B) {
	mem := benchStore(b, false)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := Open(Options{FS: mem, Dir: "store"})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkOpenRewrite is a broker restart: Open replays a rewritten store
// of 1000 records (one transaction), then Rewrite writes it again.
func BenchmarkOpenRewrite(b *testing.B) {
	mem := benchStore(b, true)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := Open(Options{FS: mem, Dir: "store"})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Rewrite(); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkFollow is a checker following a store as it commits: one
// single-record transaction, then one Follow of the durable bytes, per
// op. It reports the bytes followed per transaction; the commit alone is
// BenchmarkCommitMem.
func BenchmarkFollow(b *testing.B) {
	mem := vfs.NewMem()
	s, err := Open(Options{FS: mem, Dir: "store"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	f := NewFollower("store")
	sc := scopeOf("bench", 0)
	batches := make([]*Batch, b.N)
	for i := range batches {
		batches[i] = benchBatch(sc, uint64(i+1), 1)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Commit(batches[i]); err != nil {
			b.Fatal(err)
		}
		if err := f.Follow(mem); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.Stats().FileBytes)/float64(b.N), "B/txn")
}
