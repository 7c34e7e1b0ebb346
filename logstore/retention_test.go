package logstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/vfs"
)

// retentionRec is a commit putting (or deleting, when value is "") keys.
func retentionRec(kvs ...string) felix.Record {
	r := felix.Record{Event: felix.EventPublish}
	for i := 0; i+1 < len(kvs); i += 2 {
		if kvs[i+1] == "" {
			r.Ops = append(r.Ops, felix.StateOp{Kind: felix.OpDelete, Key: kvs[i]})
		} else {
			r.Ops = append(r.Ops, felix.StateOp{Kind: felix.OpPut, Key: kvs[i], Value: []byte(kvs[i+1])})
		}
	}
	return r
}

// TestPositionRaisingFirstOffsetDropsPrefix: the retention rule in the
// store. Raising a scope's first offset drops its log rows below it and
// the keys those records wrote last; the state table stays the fold of the
// retained log (checked by CheckStateMatchesLog, an independent fold), the
// same after a reopen, and the window never moves back.
func TestPositionRaisingFirstOffsetDropsPrefix(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	sc := scopeOf("acme", 0)
	b := &Batch{}
	b.AddRecord(sc, 0, retentionRec("a", "a0", "d", "d0"), nil) // a's last write
	b.AddRecord(sc, 1, retentionRec("b", "b1"), nil)
	b.AddRecord(sc, 2, retentionRec("b", "", "d", "d2"), nil) // b deleted, d rewritten
	b.AddRecord(sc, 3, retentionRec("c", "c3"), nil)
	b.Positions = []PositionRow{{Scope: sc, Position: Position{AppliedIndex: 4, NextOffset: 4}}}
	mustCommit(t, s, b)
	mustCommit(t, s, &Batch{Positions: []PositionRow{{Scope: sc, Position: Position{AppliedIndex: 5, NextOffset: 4, FirstOffset: 3}}}})
	// d was last written at 2, which the window [3, 4) no longer holds.
	if got := s.Counts(); got.Log != 1 || got.State != 1 {
		t.Fatalf("counts %+v, want 1 log row (offset 3) and 1 state row (c)", got)
	}
	for _, k := range []string{"a", "b", "d"} {
		if v, ok := s.StateGet(sc, k); ok {
			t.Fatalf("%s = %+v: its last write is below the window [3, 4)", k, v)
		}
	}
	if err := s.CheckStateMatchesLog(); err != nil {
		t.Fatal(err)
	}
	before := dump(s)
	s.Close()
	s2 := openMem(t, fs)
	if after := dump(s2); after != before {
		t.Fatalf("reopened store differs:\n%s\nwant:\n%s", after, before)
	}
	err := s2.Commit(&Batch{Positions: []PositionRow{{Scope: sc, Position: Position{AppliedIndex: 6, NextOffset: 4, FirstOffset: 2}}}})
	if err == nil || !strings.Contains(err.Error(), "never moves back") {
		t.Fatalf("lowering the first offset: %v, want a refusal", err)
	}
	err = s2.Commit(&Batch{Positions: []PositionRow{{Scope: sc, Position: Position{AppliedIndex: 6, NextOffset: 4, FirstOffset: 5}}}})
	if err == nil || !strings.Contains(err.Error(), "past next offset") {
		t.Fatalf("first offset past next: %v, want a refusal", err)
	}
}

// TestRetentionInOneBatchKeepsRewrittenKey: records added and dropped in
// one batch (a window smaller than the batch) leave only the window, and a
// key rewritten inside the window keeps its newest version.
func TestRetentionInOneBatchKeepsRewrittenKey(t *testing.T) {
	s := openMem(t, vfs.NewMem())
	sc := scopeOf("acme", 1)
	b := &Batch{}
	for off, v := range []string{"v0", "v1", "v2", "v3"} {
		b.AddRecord(sc, uint64(off), retentionRec("k", v, "only"+v, "x"), nil)
	}
	b.Positions = []PositionRow{{Scope: sc, Position: Position{AppliedIndex: 4, NextOffset: 4, FirstOffset: 2}}}
	mustCommit(t, s, b)
	if got := s.LogScan(sc, 0, 0); len(got) != 2 || got[0].Offset != 2 {
		t.Fatalf("log %+v, want offsets 2 and 3", got)
	}
	if v, ok := s.StateGet(sc, "k"); !ok || string(v.Value) != "v3" || v.Version != 3 {
		t.Fatalf("k = %+v %v, want v3@3", v, ok)
	}
	if got := s.Counts().State; got != 3 {
		t.Fatalf("%d state rows, want 3 (k, onlyv2, onlyv3)", got)
	}
	if err := s.CheckStateMatchesLog(); err != nil {
		t.Fatal(err)
	}
}

// TestRetentionKeepsUndeliveredOutboxRows: raising a scope's first offset
// drops log rows, never outbox rows. Events the relay has not confirmed
// (no outbox delete yet) stay readable in offset order, through a reopen,
// until a delete (the relay's trim) removes them.
func TestRetentionKeepsUndeliveredOutboxRows(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	sc := scopeOf("acme", 2)
	b := &Batch{}
	for off, ev := range []string{"e0", "e1", "e2", "e3"} {
		b.AddRecord(sc, uint64(off), retentionRec("k", ev), &Intent{Event: felix.EventPublish, Data: []byte(ev)})
	}
	b.Positions = []PositionRow{{Scope: sc, Position: Position{AppliedIndex: 4, NextOffset: 4}}}
	mustCommit(t, s, b)
	// The relay confirmed offset 0 only; retention then drops 0..2.
	mustCommit(t, s, &Batch{Outbox: []OutboxRow{{Kind: WriteDelete, Scope: sc, Offset: 0}}})
	mustCommit(t, s, &Batch{Positions: []PositionRow{{Scope: sc, Position: Position{AppliedIndex: 6, NextOffset: 4, FirstOffset: 3}}}})
	wantRows := func(s *Store, when string, want ...string) {
		t.Helper()
		rows := s.OutboxRange(sc, 0, 16)
		var got []string
		for _, r := range rows {
			got = append(got, fmt.Sprintf("%d:%s", r.Offset, r.Intent.Data))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("%s: outbox rows %q, want %q", when, got, want)
		}
	}
	wantRows(s, "after retention dropped 0..2", "1:e1", "2:e2", "3:e3")
	if c := s.Counts(); c.Log != 1 || c.Outbox != 3 {
		t.Fatalf("counts %+v, want 1 log row and 3 outbox rows", c)
	}
	s.Close()
	s2 := openMem(t, fs)
	wantRows(s2, "after a reopen", "1:e1", "2:e2", "3:e3")
	mustCommit(t, s2, &Batch{Outbox: []OutboxRow{{Kind: WriteDelete, Scope: sc, Offset: 1}, {Kind: WriteDelete, Scope: sc, Offset: 2}}})
	wantRows(s2, "after the relay's trim through 2", "3:e3")
}
