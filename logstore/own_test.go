package logstore

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"go.etcd.io/raft/v3/raftpb"
	"pgregory.net/rapid"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
)

// genBytes draws nil, an empty non-nil slice, or a few bytes: the cases in
// which installing from the batch and decoding could disagree.
func genBytes(t *rapid.T, label string) []byte {
	switch rapid.IntRange(0, 2).Draw(t, label+" shape") {
	case 0:
		return nil
	case 1:
		return []byte{}
	}
	return rapid.SliceOfN(rapid.Byte(), 1, 8).Draw(t, label)
}

func genScope(t *rapid.T) felix.Scope {
	return scopeOf(rapid.SampledFrom([]string{"a", "b"}).Draw(t, "tenant"), uint32(rapid.IntRange(0, 2).Draw(t, "shard")))
}

func genSnapshot(t *rapid.T, label string) *raftpb.Snapshot {
	s := &raftpb.Snapshot{Metadata: &raftpb.SnapshotMetadata{
		Index: new(rapid.Uint64Range(1, 50).Draw(t, label+" index")),
		Term:  new(rapid.Uint64Range(1, 5).Draw(t, label+" term")),
	}}
	if rapid.Bool().Draw(t, label+" has conf state") {
		s.Metadata.ConfState = &raftpb.ConfState{Voters: []uint64{1, 2, 3}}
	}
	s.Data = genBytes(t, label+" data")
	return s
}

// genBatch draws a valid batch touching any of the raft groups and tables.
func genBatch(t *rapid.T) *Batch {
	b := &Batch{}
	for g := range uint64(rapid.IntRange(0, 2).Draw(t, "groups")) {
		w := GroupWrite{Group: g + 1}
		if rapid.Bool().Draw(t, "snapshot") {
			w.Snapshot = genSnapshot(t, "snapshot")
		}
		first := rapid.Uint64Range(1, 40).Draw(t, "first index")
		for i := range uint64(rapid.IntRange(0, 3).Draw(t, "entries")) {
			w.Entries = append(w.Entries, &raftpb.Entry{Index: new(first + i), Term: new(uint64(2)),
				Type: raftpb.EntryNormal.Enum(), Data: genBytes(t, "entry data")})
		}
		if rapid.Bool().Draw(t, "hard state") {
			w.HardState = &raftpb.HardState{Term: new(uint64(2)), Commit: new(first)}
		}
		if rapid.Bool().Draw(t, "compaction") {
			w.Compact = &Compaction{Snapshot: genSnapshot(t, "compaction")}
		}
		w.AppliedIndex = rapid.Uint64Range(0, 50).Draw(t, "applied index")
		b.Groups = append(b.Groups, w)
	}
	for i := range uint64(rapid.IntRange(0, 3).Draw(t, "records")) {
		rec := felix.Record{Event: felix.EventPublish, Payload: genBytes(t, "payload")}
		if rapid.Bool().Draw(t, "enqueue") {
			rec.Event = felix.EventEnqueue
		}
		if rapid.Bool().Draw(t, "conditional") {
			rec.Conditional, rec.ExpectedOffset = true, rapid.Uint64Range(0, 9).Draw(t, "expected")
		}
		for range rapid.IntRange(0, 3).Draw(t, "ops") {
			op := felix.StateOp{Kind: felix.OpDelete, Key: rapid.SampledFrom([]string{"k", "m"}).Draw(t, "key")}
			if rapid.Bool().Draw(t, "put") {
				op.Kind, op.Value = felix.OpPut, genBytes(t, "value")
			} else if rapid.Bool().Draw(t, "empty delete value") {
				op.Value = []byte{}
			}
			rec.Ops = append(rec.Ops, op)
		}
		if len(rec.Ops) == 0 && rapid.Bool().Draw(t, "empty ops") {
			rec.Ops = []felix.StateOp{}
		}
		var intent *Intent
		if rapid.Bool().Draw(t, "intent") {
			intent = &Intent{Event: rec.Event, Data: genBytes(t, "intent data")}
		}
		b.AddRecord(genScope(t), 10+i, rec, intent)
	}
	for range rapid.IntRange(0, 2).Draw(t, "outbox deletes") {
		b.Outbox = append(b.Outbox, OutboxRow{Kind: WriteDelete, Scope: genScope(t), Offset: rapid.Uint64Range(0, 9).Draw(t, "offset")})
	}
	for range rapid.IntRange(0, 2).Draw(t, "positions") {
		b.Positions = append(b.Positions, PositionRow{Scope: genScope(t),
			Position: Position{AppliedIndex: rapid.Uint64().Draw(t, "applied"), NextOffset: rapid.Uint64().Draw(t, "next")}})
	}
	for range rapid.IntRange(0, 2).Draw(t, "consumer groups") {
		g := statemachine.GroupState{Name: rapid.SampledFrom([]string{"g1", "g2"}).Draw(t, "group name"),
			CommittedOffset: rapid.Uint64().Draw(t, "committed"), DeliverNextOffset: rapid.Uint64().Draw(t, "deliver next")}
		for range rapid.IntRange(0, 2).Draw(t, "leases") {
			g.Leases = append(g.Leases, statemachine.Lease{Offset: rapid.Uint64().Draw(t, "lease offset"), ExpiryNs: rapid.Int64().Draw(t, "lease expiry")})
		}
		if len(g.Leases) == 0 && rapid.Bool().Draw(t, "empty leases") {
			g.Leases = []statemachine.Lease{}
		}
		b.ConsumerGroups = append(b.ConsumerGroups, ConsumerGroupRow{Scope: genScope(t), Group: g})
	}
	return b
}

// TestOwnBatchEqualsDecode is the fast path's honesty check in every build:
// for random valid batches, what Commit installs straight from the batch
// equals what decoding its encoding yields (what replay installs), and it
// shares no byte slice with the caller's batch. The batches of one check
// share one store's reused row slices, as Commit's do: no row of an earlier
// batch shows through in a later one, and the kept slices are clear.
func TestOwnBatchEqualsDecode(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s Store
		for i := rapid.IntRange(1, 4).Draw(t, "batches"); i > 0; i-- {
			b := genBatch(t)
			if err := validateShape(b); err != nil {
				t.Fatalf("generated an invalid batch: %v", err)
			}
			raftFrame, tables, err := encodeTxn(b)
			if err != nil {
				t.Fatal(err)
			}
			decoded := decodeFrames(raftFrame, tables)
			owned := ownBatch(b, &s.ownRows)
			if d := sameBatch(&owned, &decoded); d != "" {
				t.Fatalf("installed against decoded: %s", d)
			}
			// Scribble over every byte the caller still holds: the owned
			// batch must not change.
			scribble(b)
			if d := sameBatch(&owned, &decoded); d != "" {
				t.Fatalf("the owned batch shares bytes with the caller's: %s", d)
			}
			s.keepOwnRows(&owned)
			if err := ownRowsClear(&s.ownRows); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestDecodeReuseEqualsFresh holds replay's decoding into reused row
// slices equal to decoding into new ones, over a run of drawn batches
// sharing one set of slices as a replay's transactions do (the invariants
// build checks every replayed transaction the same way).
func TestDecodeReuseEqualsFresh(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var rows Batch
		for i := rapid.IntRange(1, 5).Draw(t, "batches"); i > 0; i-- {
			raftFrame, tables, err := encodeTxn(genBatch(t))
			if err != nil {
				t.Fatal(err)
			}
			var frames []rawFrame
			for _, f := range append([][]byte{raftFrame}, tables[:]...) {
				if len(f) > 0 {
					kind, p, _, err := parseFrame(f, 0)
					if err != nil {
						t.Fatal(err)
					}
					frames = append(frames, rawFrame{kind: kind, payload: p})
				}
			}
			reused, err := decodeTxn(frames, &rows)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := decodeTxn(frames, &Batch{})
			if err != nil {
				t.Fatal(err)
			}
			if d := sameBatch(&reused, &fresh); d != "" {
				t.Fatalf("reused against new: %s", d)
			}
			keepLargerRows(&rows, &reused)
		}
	})
}

// ownRowsClear checks keepOwnRows's invariant: every kept row slice is
// within ownRowsKeepMax and zero up to its capacity.
func ownRowsClear(b *Batch) error {
	tables := []struct {
		name string
		rows any
	}{{"groups", b.Groups}, {"log", b.Log}, {"state", b.State}, {"outbox", b.Outbox}, {"consumer groups", b.ConsumerGroups}}
	for _, tb := range tables {
		name, v := tb.name, reflect.ValueOf(tb.rows)
		if v.Cap() > ownRowsKeepMax {
			return fmt.Errorf("kept %s rows have capacity %d, above %d", name, v.Cap(), ownRowsKeepMax)
		}
		v = v.Slice(0, v.Cap())
		for i := range v.Len() {
			if !v.Index(i).IsZero() {
				return fmt.Errorf("kept %s row %d of %d is not clear: %#v", name, i, v.Len(), v.Index(i).Interface())
			}
		}
	}
	return nil
}

// scribble overwrites every byte slice of the batch's rows in place.
func scribble(b *Batch) {
	fill := func(p []byte) {
		for i := range p {
			p[i] ^= 0xff
		}
	}
	for i := range b.Log {
		fill(b.Log[i].Record.Payload)
		for j := range b.Log[i].Record.Ops {
			fill(b.Log[i].Record.Ops[j].Value)
		}
	}
	for i := range b.State {
		fill(b.State[i].Value)
	}
	for i := range b.Outbox {
		fill(b.Outbox[i].Intent.Data)
	}
	for i := range b.ConsumerGroups {
		for j := range b.ConsumerGroups[i].Group.Leases {
			b.ConsumerGroups[i].Group.Leases[j].Offset ^= 0xff
		}
	}
	for i := range b.Groups {
		if s := b.Groups[i].Snapshot; s != nil {
			fill(s.Data)
		}
	}
}

// TestSameBatchHasTeeth plants one difference of each kind the fast path
// could get wrong and checks sameBatch reports it, and that the invariants
// build's check panics with both values on such a difference.
func TestSameBatchHasTeeth(t *testing.T) {
	base := func() *Batch {
		b := fullBatch(scopeOf("a", 0), 1, 3)
		b.Groups[0].Snapshot = &raftpb.Snapshot{Metadata: &raftpb.SnapshotMetadata{Index: new(uint64(2)), Term: new(uint64(1))}}
		b.Outbox = append(b.Outbox, OutboxRow{Kind: WriteDelete, Scope: scopeOf("a", 0), Offset: 1})
		return b
	}
	plants := map[string]func(b *Batch){
		"entry data":              func(b *Batch) { b.Groups[0].Entries[0].Data = []byte("other") },
		"entry dropped":           func(b *Batch) { b.Groups[0].Entries = nil },
		"hard state commit":       func(b *Batch) { b.Groups[0].HardState.Commit = new(uint64(99)) },
		"hard state dropped":      func(b *Batch) { b.Groups[0].HardState = nil },
		"snapshot index":          func(b *Batch) { b.Groups[0].Snapshot.Metadata.Index = new(uint64(7)) },
		"compaction added":        func(b *Batch) { b.Groups[0].Compact = &Compaction{Snapshot: &raftpb.Snapshot{}} },
		"group id":                func(b *Batch) { b.Groups[0].Group = 9 },
		"payload byte":            func(b *Batch) { b.Log[0].Record.Payload[0] ^= 1 },
		"empty payload not nil":   func(b *Batch) { b.Log[0].Record.Payload = []byte{} },
		"op value":                func(b *Batch) { b.Log[0].Record.Ops[0].Value = nil },
		"empty ops not nil":       func(b *Batch) { b.Log[0].Record.Ops = []felix.StateOp{} },
		"log offset":              func(b *Batch) { b.Log[0].Offset++ },
		"state value":             func(b *Batch) { b.State[0].Value = []byte("x") },
		"state version":           func(b *Batch) { b.State[0].Version++ },
		"position":                func(b *Batch) { b.Positions[0].Position.NextOffset++ },
		"intent data":             func(b *Batch) { b.Outbox[0].Intent.Data = nil },
		"outbox row dropped":      func(b *Batch) { b.Outbox = b.Outbox[:1] },
		"state table dropped":     func(b *Batch) { b.State = nil },
		"applied index":           func(b *Batch) { b.Groups[0].AppliedIndex++ },
		"consumer group offset":   func(b *Batch) { b.ConsumerGroups[0].Group.CommittedOffset++ },
		"lease expiry":            func(b *Batch) { b.ConsumerGroups[0].Group.Leases[0].ExpiryNs++ },
		"lease dropped":           func(b *Batch) { b.ConsumerGroups[0].Group.Leases = nil },
		"empty leases not nil":    func(b *Batch) { b.ConsumerGroups[0].Group.Leases = []statemachine.Lease{} },
		"consumer groups dropped": func(b *Batch) { b.ConsumerGroups = nil },
	}
	for name, plant := range plants {
		t.Run(name, func(t *testing.T) {
			b := base()
			raftFrame, tables, err := encodeTxn(b)
			if err != nil {
				t.Fatal(err)
			}
			decoded := decodeFrames(raftFrame, tables)
			owned := ownBatch(b, &Batch{})
			if d := sameBatch(&owned, &decoded); d != "" {
				t.Fatalf("unplanted batch differs: %s", d)
			}
			plant(&owned)
			if d := sameBatch(&owned, &decoded); d == "" {
				t.Fatalf("sameBatch misses the planted difference")
			}
			msg := func() (msg string) {
				defer func() {
					if r := recover(); r != nil {
						msg, _ = r.(string)
					}
				}()
				checkDecodesAsInstalled(raftFrame, tables, &owned)
				return ""
			}()
			if !strings.Contains(msg, "differs from what replay decodes") {
				t.Fatalf("the invariants check did not panic on the planted difference (got %q)", msg)
			}
		})
	}
}
