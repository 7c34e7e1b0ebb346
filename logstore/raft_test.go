package logstore

// A real raft group on the store: one RawNode persisting every Ready
// through Commit (entries, hard state and the applied rows in one batch),
// restarted from the store after a power loss, with a local compaction in
// between. It checks the raft.Storage contract the way raft itself uses it.

import (
	"fmt"
	"testing"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/vfs"
)

const raftTestGroup = 4

var raftTestScope = scopeOf("raft", raftTestGroup)

type raftHarness struct {
	t  *testing.T
	s  *Store
	rn *raft.RawNode
}

func startRaft(t *testing.T, s *Store) *raftHarness {
	applied := uint64(0)
	if p, ok := s.PositionGet(raftTestScope); ok {
		applied = p.AppliedIndex
	}
	rn, err := raft.NewRawNode(&raft.Config{ID: 1, ElectionTick: 10, HeartbeatTick: 1,
		Storage: s.RaftStorage(raftTestGroup), Applied: applied, MaxSizePerMsg: 1 << 20,
		MaxInflightMsgs: 16, Logger: discardLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	h := &raftHarness{t: t, s: s, rn: rn}
	if err := rn.Campaign(); err != nil {
		t.Fatal(err)
	}
	h.drain()
	return h
}

// drain handles Ready until there is none: persist, apply, Advance.
func (h *raftHarness) drain() {
	for h.rn.HasReady() {
		rd := h.rn.Ready()
		b := &Batch{}
		w := GroupWrite{Group: raftTestGroup, Entries: rd.Entries}
		if !raft.IsEmptyHardState(rd.HardState) {
			w.HardState = rd.HardState
		}
		if !raft.IsEmptySnap(rd.Snapshot) {
			w.Snapshot = rd.Snapshot
		}
		b.Groups = append(b.Groups, w)
		last := uint64(0)
		next := uint64(1)
		if p, ok := h.s.PositionGet(raftTestScope); ok {
			next = p.NextOffset
		}
		for _, e := range rd.CommittedEntries {
			last = e.GetIndex()
			if e.GetType() != raftpb.EntryNormal || len(e.Data) == 0 {
				continue
			}
			rec := felix.Record{Event: felix.EventPublish, Payload: e.Data,
				Ops: []felix.StateOp{{Kind: felix.OpPut, Key: "last", Value: e.Data}}}
			b.AddRecord(raftTestScope, next, rec, nil)
			next++
		}
		if last > 0 {
			b.Positions = append(b.Positions, PositionRow{Scope: raftTestScope, Position: Position{AppliedIndex: last, NextOffset: next}})
		}
		if err := h.s.Commit(b); err != nil {
			h.t.Fatalf("commit of a Ready: %v", err)
		}
		h.rn.Advance(rd)
	}
}

func (h *raftHarness) propose(from, to int) {
	for i := from; i < to; i++ {
		if err := h.rn.Propose([]byte(fmt.Sprintf("p%d", i))); err != nil {
			h.t.Fatal(err)
		}
		h.drain()
	}
}

func TestRaftOnTheStore(t *testing.T) {
	mem := vfs.NewMem()
	s := openMem(t, mem)
	boot := &raftpb.Snapshot{Metadata: &raftpb.SnapshotMetadata{Index: new(uint64(1)), Term: new(uint64(1)),
		ConfState: &raftpb.ConfState{Voters: []uint64{1}}}}
	mustCommit(t, s, &Batch{Groups: []GroupWrite{{Group: raftTestGroup, Snapshot: boot}}})
	h := startRaft(t, s)
	h.propose(0, 10)
	if n := len(s.LogScan(raftTestScope, 0, 0)); n != 10 {
		t.Fatalf("%d records applied, want 10", n)
	}

	// Compact below the applied index, then lose power and restart.
	applied, _ := s.PositionGet(raftTestScope)
	term, err := s.RaftStorage(raftTestGroup).Term(applied.AppliedIndex - 2)
	if err != nil {
		t.Fatal(err)
	}
	mustCommit(t, s, &Batch{Groups: []GroupWrite{{Group: raftTestGroup, Compact: &Compaction{Snapshot: &raftpb.Snapshot{
		Metadata: &raftpb.SnapshotMetadata{Index: new(applied.AppliedIndex - 2), Term: new(term)}, Data: []byte("state")}}}}})
	mem.Crash(vfs.LoseUnsynced)
	s2 := openMem(t, mem)
	if fi, _ := s2.RaftStorage(raftTestGroup).FirstIndex(); fi != applied.AppliedIndex-1 {
		t.Fatalf("first index %d after compaction at %d", fi, applied.AppliedIndex-2)
	}
	h2 := startRaft(t, s2)
	h2.propose(10, 20)
	ents := s2.LogScan(raftTestScope, 0, 0)
	if len(ents) != 20 || string(ents[19].Record.Payload) != "p19" {
		t.Fatalf("after restart: %d records, last %q; want 20 ending p19", len(ents), ents[len(ents)-1].Record.Payload)
	}
	for i, e := range ents {
		if e.Offset != uint64(i+1) || string(e.Record.Payload) != fmt.Sprintf("p%d", i) {
			t.Fatalf("record %d is %q at offset %d: raft re-applied or skipped an entry across the restart", i, e.Record.Payload, e.Offset)
		}
	}
	if err := s2.CheckStateMatchesLog(); err != nil {
		t.Fatal(err)
	}
}

// discardLogger keeps raft quiet and makes its Panic/Fatal panic.
type discardLogger struct{}

func (discardLogger) Debug(...any)              {}
func (discardLogger) Debugf(string, ...any)     {}
func (discardLogger) Error(...any)              {}
func (discardLogger) Errorf(string, ...any)     {}
func (discardLogger) Info(...any)               {}
func (discardLogger) Infof(string, ...any)      {}
func (discardLogger) Warning(...any)            {}
func (discardLogger) Warningf(string, ...any)   {}
func (discardLogger) Fatal(v ...any)            { panic(fmt.Sprint(v...)) }
func (discardLogger) Fatalf(f string, v ...any) { panic(fmt.Sprintf(f, v...)) }
func (discardLogger) Panic(v ...any)            { panic(fmt.Sprint(v...)) }
func (discardLogger) Panicf(f string, v ...any) { panic(fmt.Sprintf(f, v...)) }

// TestGroupStorageFollowsItsGroup: a GroupStorage taken before its group's
// first write reads it as empty, then sees that write and every later one,
// compaction included, as a fresh GroupStorage does (it keeps the group's
// pointer once there is one).
func TestGroupStorageFollowsItsGroup(t *testing.T) {
	s := openMem(t, vfs.NewMem())
	early := s.RaftStorage(raftTestGroup)
	if li, _ := early.LastIndex(); li != 0 {
		t.Fatalf("a group never written has last index %d", li)
	}
	for i := uint64(1); i <= 6; i++ {
		mustCommit(t, s, &Batch{Groups: []GroupWrite{{Group: raftTestGroup, Entries: []*raftpb.Entry{entry(i, 1, "x")},
			HardState: &raftpb.HardState{Term: new(uint64(1)), Commit: new(i)}}}})
		if i == 4 {
			mustCommit(t, s, &Batch{Groups: []GroupWrite{{Group: raftTestGroup, Compact: &Compaction{Snapshot: &raftpb.Snapshot{
				Metadata: &raftpb.SnapshotMetadata{Index: new(uint64(3)), Term: new(uint64(1))}, Data: []byte("state")}}}}})
		}
		fresh := s.RaftStorage(raftTestGroup)
		for _, gs := range []*GroupStorage{early, fresh} {
			fi, _ := gs.FirstIndex()
			li, _ := gs.LastIndex()
			ents, err := gs.Entries(fi, li+1, 1<<20)
			wantFirst := uint64(1)
			if i >= 4 {
				wantFirst = 4
			}
			if fi != wantFirst || li != i || err != nil || uint64(len(ents)) != i-wantFirst+1 {
				t.Fatalf("after entry %d: first %d, last %d, %d entries (%v); want %d..%d", i, fi, li, len(ents), err, wantFirst, i)
			}
		}
	}
}
