package logstore

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/vfs"
)

// rowsOf lists every row of scope in s, one string per row keyed by
// table and key: what a change report must cover when it differs.
func rowsOf(s *Store, scope felix.Scope) map[string]string {
	rows := map[string]string{}
	for _, e := range s.LogScan(scope, 0, 0) {
		rows[fmt.Sprintf("log %d", e.Offset)] = fmt.Sprintf("%+v", e.Record)
	}
	for _, r := range s.StateScan(scope) {
		rows["state "+r.Key] = fmt.Sprintf("%q@%d", r.Value, r.Version)
	}
	for _, r := range s.OutboxScan(scope) {
		rows[fmt.Sprintf("outbox %d", r.Offset)] = fmt.Sprintf("%+v", r.Intent)
	}
	for _, g := range s.ConsumerGroupScan(scope) {
		rows["group "+g.Name] = fmt.Sprintf("%+v", g)
	}
	return rows
}

// covers reports whether a change report names the row keyed k.
func covers(c *ScopeChanges, k string) bool {
	var table, key string
	var offset uint64
	fmt.Sscan(k, &table, &key)
	fmt.Sscan(key, &offset)
	in := func(spans ...OffsetSpan) bool {
		for _, s := range spans {
			if s.Any && s.Lo <= offset && offset <= s.Hi {
				return true
			}
		}
		return false
	}
	switch table {
	case "log":
		return in(c.LogWritten, c.LogDeleted)
	case "outbox":
		return in(c.OutboxWritten, c.OutboxDeleted)
	case "state":
		return c.KeysOverflow || slices.Contains(c.StateKeys, key)
	case "group":
		return c.KeysOverflow || slices.Contains(c.ConsumerGroups, key)
	}
	panic(k)
}

// TestFollowerReportsEveryChangedRow: over random sequences of commits
// (records with state puts and deletes, outbox trims, retention steps,
// consumer-group writes, a rewrite now and then), followed after a random
// number of commits each, every row of every scope that differs from
// what the follower held when its changes were last taken is named by
// TakeChanges, and a scope appearing or vanishing moves ScopesChanged.
// The rows are read back by the store's own scans, apart from the
// report.
func TestFollowerReportsEveryChangedRow(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		fs := vfs.NewMem()
		s, err := Open(Options{FS: fs, Dir: "node1"})
		if err != nil {
			t.Fatal(err)
		}
		f := NewFollower("node1")
		scopes := []felix.Scope{scopeOf("a", 0), scopeOf("b", 1)}
		next := map[felix.Scope]uint64{}
		first := map[felix.Scope]uint64{}
		trimmed := map[felix.Scope]uint64{}
		seen := map[felix.Scope]map[string]string{}
		seenScopes, seenChanged, gen := "", uint64(0), f.Generation()
		for step := range rapid.IntRange(1, 30).Draw(t, "steps") {
			sc := scopes[rapid.IntRange(0, 1).Draw(t, "scope")]
			b := &Batch{}
			switch rapid.IntRange(0, 4).Draw(t, "kind") {
			case 0, 1: // a record: puts and deletes of a few keys
				var ops []felix.StateOp
				for range rapid.IntRange(0, 3).Draw(t, "ops") {
					k := fmt.Sprintf("k%d", rapid.IntRange(0, 4).Draw(t, "key"))
					if rapid.Bool().Draw(t, "delete") {
						ops = append(ops, felix.StateOp{Kind: felix.OpDelete, Key: k})
					} else {
						ops = append(ops, felix.StateOp{Kind: felix.OpPut, Key: k, Value: []byte(fmt.Sprint(step))})
					}
				}
				b.AddRecord(sc, next[sc], felix.Record{Event: felix.EventPublish, Payload: []byte{byte(step)}, Ops: ops}, &Intent{Event: felix.EventPublish})
				next[sc]++
				b.Positions = append(b.Positions, PositionRow{Scope: sc, Position: Position{NextOffset: next[sc], FirstOffset: first[sc]}})
			case 2: // retention
				first[sc] = rapid.Uint64Range(first[sc], next[sc]).Draw(t, "first")
				b.Positions = append(b.Positions, PositionRow{Scope: sc, Position: Position{NextOffset: next[sc], FirstOffset: first[sc]}})
			case 3: // an outbox trim
				to := rapid.Uint64Range(trimmed[sc], next[sc]).Draw(t, "trim")
				for o := trimmed[sc]; o < to; o++ {
					b.Outbox = append(b.Outbox, OutboxRow{Kind: WriteDelete, Scope: sc, Offset: o})
				}
				trimmed[sc] = to
			case 4:
				b.ConsumerGroups = append(b.ConsumerGroups, ConsumerGroupRow{Scope: sc, Group: statemachine.GroupState{
					Name: fmt.Sprintf("g%d", rapid.IntRange(0, 2).Draw(t, "group")), CommittedOffset: uint64(step)}})
			}
			if b.Empty() {
				continue
			}
			if err := s.Commit(b); err != nil {
				t.Fatal(err)
			}
			if rapid.IntRange(0, 9).Draw(t, "rewrite") == 0 {
				if err := s.Rewrite(); err != nil {
					t.Fatal(err)
				}
			}
			if !rapid.Bool().Draw(t, "follow") {
				continue
			}
			if err := f.Follow(fs); err != nil {
				t.Fatal(err)
			}
			fresh := f.Generation() != gen
			gen = f.Generation()
			if names := fmt.Sprint(f.Store().Scopes()); names != seenScopes && !fresh && f.ScopesChanged() == seenChanged {
				t.Fatalf("step %d: the scopes went from %s to %s, ScopesChanged stayed %d", step, seenScopes, names, seenChanged)
			}
			seenScopes, seenChanged = fmt.Sprint(f.Store().Scopes()), f.ScopesChanged()
			for _, sc := range scopes {
				c := f.TakeChanges(sc)
				now := rowsOf(f.Store(), sc)
				if fresh {
					seen[sc] = now
					continue
				}
				for k, v := range now {
					if was, ok := seen[sc][k]; (!ok || was != v) && !covers(&c, k) {
						t.Fatalf("step %d: %s row %q became %s, the report %+v does not name it", step, sc, k, v, c)
					}
				}
				for k := range seen[sc] {
					if _, ok := now[k]; !ok && !covers(&c, k) {
						t.Fatalf("step %d: %s row %q went away, the report %+v does not name it", step, sc, k, c)
					}
				}
				seen[sc] = now
			}
		}
	})
}

// TestFollowerChangesByHand: the report of two transactions, as
// written: the log rows' span, a retention step's dropped rows and the
// state row dropped with them, the outbox rows written and trimmed, the
// keys once each and ascending; taking it forgets it; a rewrite starts a
// new generation.
func TestFollowerChangesByHand(t *testing.T) {
	fs := vfs.NewMem()
	s := openMem(t, fs)
	f := NewFollower("node1")
	sc := scopeOf("t", 0)
	mustCommit(t, s, fullBatch(sc, 1, 1))
	mustCommit(t, s, fullBatch(sc, 1, 2))
	b := fullBatch(sc, 1, 3)
	b.Positions[0].Position.FirstOffset = 2 // drops offset 1, whose key k offset 2 rewrote
	b.Outbox = append(b.Outbox, OutboxRow{Kind: WriteDelete, Scope: sc, Offset: 1})
	b.State = append(b.State, StateRow{Kind: WritePut, Scope: sc, Key: "a", Value: []byte("x"), Version: 3})
	mustCommit(t, s, b)
	if err := f.Follow(fs); err != nil {
		t.Fatal(err)
	}
	gen, scopes := f.Generation(), f.ScopesChanged()
	got := f.TakeChanges(sc)
	want := ScopeChanges{LogWritten: OffsetSpan{1, 3, true}, LogDeleted: OffsetSpan{1, 1, true},
		OutboxWritten: OffsetSpan{1, 3, true}, OutboxDeleted: OffsetSpan{1, 1, true},
		StateKeys: []string{"a", "k"}, ConsumerGroups: []string{"workers"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("changes %+v, want %+v", got, want)
	}
	if scopes == 0 {
		t.Fatal("a new scope did not move ScopesChanged")
	}
	if again := f.TakeChanges(sc); fmt.Sprint(again) != fmt.Sprint(ScopeChanges{}) {
		t.Fatalf("changes taken twice: %+v", again)
	}
	if err := s.Rewrite(); err != nil {
		t.Fatal(err)
	}
	if err := f.Follow(fs); err != nil {
		t.Fatal(err)
	}
	if f.Generation() == gen {
		t.Fatal("a rewritten file was followed on in the same generation")
	}
}
