package logstore

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/vfs"
)

// naiveContentBatches is the rewrite's content as it was first written:
// every row listed through the public scans into batches that grow by
// append, cut where the estimated size passes rewriteTxnBytesMax. It is
// the oracle for eachContentBatch, which must hand on equal batches.
func naiveContentBatches(s *Store) []*Batch {
	var out []*Batch
	if ids := s.Groups(); len(ids) > 0 {
		b := &Batch{}
		for _, id := range ids {
			g := s.groups[id]
			b.Groups = append(b.Groups, GroupWrite{Group: id, Snapshot: g.snapshot,
				Entries: slices.Clone(g.ents[1:]), HardState: g.hardState, AppliedIndex: g.applied})
		}
		out = append(out, b)
	}
	cur, curBytes := &Batch{}, 0
	add := func(n int) {
		curBytes += n
		if curBytes > rewriteTxnBytesMax {
			out, cur, curBytes = append(out, cur), &Batch{}, n
		}
	}
	for _, sc := range s.Scopes() {
		m := s.tab.log[sc]
		var offsets []uint64
		for o := range m {
			offsets = append(offsets, o)
		}
		slices.Sort(offsets)
		for _, o := range offsets {
			r := m[o]
			add(wireRecordBytes(&r))
			cur.Log = append(cur.Log, LogRow{Scope: sc, Offset: o, Record: r})
		}
		for _, r := range s.StateScan(sc) {
			add(len(r.Key) + len(r.Value) + 64)
			cur.State = append(cur.State, r)
		}
		if p, ok := s.PositionGet(sc); ok {
			add(64)
			cur.Positions = append(cur.Positions, PositionRow{Scope: sc, Position: p})
		}
		for _, r := range s.OutboxScan(sc) {
			add(len(r.Intent.Data) + 64)
			cur.Outbox = append(cur.Outbox, r)
		}
		for _, g := range s.ConsumerGroupScan(sc) {
			add(len(g.Name) + 20*len(g.Leases) + 64)
			cur.ConsumerGroups = append(cur.ConsumerGroups, ConsumerGroupRow{Scope: sc, Group: g})
		}
	}
	if !cur.Empty() {
		out = append(out, cur)
	}
	return out
}

// fataler is what the checks need of a *testing.T or a *rapid.T.
type fataler interface {
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// checkContentBatches fails unless eachContentBatch hands on exactly the
// oracle's batches, each encoding to the same bytes.
func checkContentBatches(t fataler, s *Store) {
	want := naiveContentBatches(s)
	i := 0
	err := s.eachContentBatch(func(b *Batch) error {
		if i >= len(want) {
			t.Fatalf("batch %d handed on, the oracle has %d", i, len(want))
		}
		got, err1 := appendTxnBytes(b)
		exp, err2 := appendTxnBytes(want[i])
		if err1 != nil || err2 != nil {
			t.Fatalf("batch %d: encode: %v, oracle: %v", i, err1, err2)
		}
		if !bytes.Equal(got, exp) {
			t.Fatalf("batch %d encodes to %d bytes that differ from the oracle's %d", i, len(got), len(exp))
		}
		i++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if i != len(want) {
		t.Fatalf("%d batches handed on, the oracle has %d", i, len(want))
	}
}

func appendTxnBytes(b *Batch) ([]byte, error) {
	buf, _, _, err := appendTxn(nil, b)
	return buf, err
}

// TestContentBatchesMatchNaive holds the rewrite's batches equal to the
// oracle's on drawn stores, and the rewritten file to the one the oracle's
// batches make.
func TestContentBatchesMatchNaive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, err := Open(Options{FS: vfs.NewMem()})
		if err != nil {
			t.Fatal(err)
		}
		for i := rapid.IntRange(0, 8).Draw(t, "batches"); i > 0; i-- {
			b := drawBatch(t, s)
			retain := rapid.IntRange(0, 3).Draw(t, "retain") == 0
			for j := range b.Positions {
				p := &b.Positions[j].Position
				if retain {
					p.FirstOffset = rapid.Uint64Range(0, p.NextOffset).Draw(t, "first offset")
				}
				if old, ok := s.PositionGet(b.Positions[j].Scope); ok {
					p.FirstOffset = max(p.FirstOffset, old.FirstOffset)
				}
			}
			// A drawn retention step the store refuses (a window moved
			// back, or past its next offset) leaves the store as it was.
			if err := s.Commit(b); err != nil && !errors.Is(err, ErrInvalidBatch) {
				t.Fatal(err)
			}
			if err := scratchClear(s); err != nil {
				t.Fatal(err)
			}
			checkContentBatches(t, s)
		}
	})
}

// TestContentBatchesSplit checks the cut into transactions: content well
// past twice rewriteTxnBytesMax, in three scopes, with a gap in one log.
func TestContentBatchesSplit(t *testing.T) {
	s, err := Open(Options{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	payload := bytes.Repeat([]byte("p"), felix.PayloadLenMax)
	for i, sc := range []felix.Scope{scopeOf("a", 0), scopeOf("b", 1), scopeOf("c", 0)} {
		for off := uint64(1); off <= 12; off++ {
			if i == 1 && off == 5 {
				continue // a gap: offsets need sorting
			}
			b := &Batch{}
			b.AddRecord(sc, off, felix.Record{Event: felix.EventPublish, Payload: payload,
				Ops: []felix.StateOp{{Kind: felix.OpPut, Key: "k", Value: []byte("v")}}}, &Intent{Event: felix.EventPublish})
			b.Positions = []PositionRow{{Scope: sc, Position: Position{NextOffset: off + 1}}}
			mustCommit(t, s, b)
		}
	}
	if n := len(naiveContentBatches(s)); n < 3 {
		t.Fatalf("the oracle cut %d batches, want a split", n)
	}
	checkContentBatches(t, s)
}

// TestLogOffsetsMatchesSort holds logOffsets equal to sorting the keys, on
// tables with and without gaps.
func TestLogOffsetsMatchesSort(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := map[uint64]felix.Record{}
		base := rapid.SampledFrom([]uint64{0, 1, 1000, 1<<64 - 20}).Draw(t, "base")
		for i := rapid.IntRange(0, 12).Draw(t, "rows"); i > 0; i-- {
			m[base+rapid.Uint64Range(0, 15).Draw(t, "offset")] = felix.Record{}
		}
		from := base + rapid.Uint64Range(0, 17).Draw(t, "from")
		var want []uint64
		for o := range m {
			if o >= from {
				want = append(want, o)
			}
		}
		slices.Sort(want)
		prefix := []uint64{7}
		got := logOffsets(slices.Clone(prefix), m, from)
		if !slices.Equal(got[:1], prefix) || !slices.Equal(got[1:], want) {
			t.Fatalf("logOffsets from %d = %v, want %v after %v", from, got, want, prefix)
		}
	})
}

// TestReplayKeepsNoFileBytes holds that nothing a replay installs refers
// to the buffer it read the file from (else the buffer, a second copy of
// the file, would live as long as the rows): scribbling over the buffer
// after the replay changes nothing a fresh Open of the same file does not
// hold, and a Rewrite of either writes the same file.
func TestReplayKeepsNoFileBytes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		mem := vfs.NewMem()
		s, err := Open(Options{FS: mem})
		if err != nil {
			t.Fatal(err)
		}
		for i := rapid.IntRange(1, 6).Draw(t, "batches"); i > 0; i-- {
			if err := s.Commit(drawBatch(t, s)); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		raw, err := vfs.ReadAll(mem, FileName)
		if err != nil {
			t.Fatal(err)
		}
		buf := bytes.Clone(raw)
		a := &Store{fs: mem, dir: ".", name: FileName, groups: map[uint64]*group{}, tab: newTables()}
		if _, _, err := a.replay(buf); err != nil {
			t.Fatal(err)
		}
		for i := range buf {
			buf[i] ^= 0xa5
		}
		b, err := Open(Options{FS: mem})
		if err != nil {
			t.Fatal(err)
		}
		if da, db := dump(a), dump(b); da != db {
			t.Fatalf("the store changed with the buffer it read:\n%s\nagainst a fresh replay:\n%s", da, db)
		}
		a.f, a.sizeBytes = b.f, b.sizeBytes
		if err := a.Rewrite(); err != nil {
			t.Fatal(err)
		}
		fa, _ := vfs.ReadAll(mem, FileName)
		if err := b.Rewrite(); err != nil {
			t.Fatal(err)
		}
		fb, _ := vfs.ReadAll(mem, FileName)
		if !bytes.Equal(fa, fb) {
			t.Fatalf("rewrites differ: %d bytes from the scribbled replay, %d from a fresh one", len(fa), len(fb))
		}
	})
}

// TestDecodeRecordCopies holds wire.DecodeRecord to what dec.record relies
// on: the record it returns shares no bytes with its input.
func TestDecodeRecordCopies(t *testing.T) {
	rec := felix.Record{Event: felix.EventPublish, Payload: []byte("payload"),
		Ops: []felix.StateOp{{Kind: felix.OpPut, Key: "k", Value: []byte("value")}}}
	var e enc
	e.record(&rec)
	d := dec{b: e.b}
	got := d.record()
	if err := d.done(); err != nil {
		t.Fatal(err)
	}
	for i := range e.b {
		e.b[i] ^= 0xff
	}
	if string(got.Payload) != "payload" || got.Ops[0].Key != "k" || string(got.Ops[0].Value) != "value" {
		t.Fatalf("the decoded record changed with the bytes it was decoded from: %+v", got)
	}
}
