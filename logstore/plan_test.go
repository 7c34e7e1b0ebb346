package logstore

import (
	"errors"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/vfs"
)

// naiveDistinct is logRowsDistinct by comparing every pair.
func naiveDistinct(rows []LogRow) (int, bool) {
	for i := range rows {
		for j := 0; j < i; j++ {
			if rows[i].Scope == rows[j].Scope && rows[i].Offset == rows[j].Offset {
				return i, false
			}
		}
	}
	return 0, true
}

// TestLogRowsDistinctMatchesNaive checks the set-free fast path and the
// fallback against a pairwise comparison, on row lists drawn to hit both
// (runs of one scope, repeated scopes, repeated and falling offsets).
func TestLogRowsDistinctMatchesNaive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var rows []LogRow
		for range rapid.IntRange(0, 12).Draw(t, "rows") {
			rows = append(rows, LogRow{Scope: genScope(t), Offset: rapid.Uint64Range(0, 6).Draw(t, "offset")})
		}
		gi, gok := logRowsDistinct(rows)
		wi, wok := naiveDistinct(rows)
		if gi != wi || gok != wok {
			t.Fatalf("rows %v: logRowsDistinct says (%d, %t), pairwise (%d, %t)", rows, gi, gok, wi, wok)
		}
	})
}

// TestCommitRefusesRepeatedLogRow plants a log row written twice in one
// batch, adjacent (falling out of the fast path's rising run) and across
// another scope's run (the fast path's run list), and checks Commit refuses
// both and writes nothing.
func TestCommitRefusesRepeatedLogRow(t *testing.T) {
	rec := felix.Record{Event: felix.EventPublish, Payload: []byte("p")}
	a, b := scopeOf("a", 0), scopeOf("b", 0)
	cases := map[string][]LogRow{
		"adjacent":   {{Scope: a, Offset: 1, Record: rec}, {Scope: a, Offset: 1, Record: rec}},
		"across run": {{Scope: a, Offset: 1, Record: rec}, {Scope: b, Offset: 1, Record: rec}, {Scope: a, Offset: 1, Record: rec}},
	}
	for name, rows := range cases {
		t.Run(name, func(t *testing.T) {
			s := openMem(t, vfs.NewMem())
			defer s.Close()
			before := s.Stats()
			err := s.Commit(&Batch{Log: rows})
			if !errors.Is(err, ErrInvalidBatch) {
				t.Fatalf("commit of a repeated log row: got %v, want ErrInvalidBatch", err)
			}
			if s.Stats() != before || s.Counts() != (RowCounts{}) {
				t.Fatalf("a refused batch changed the store: %+v -> %+v, counts %+v", before, s.Stats(), s.Counts())
			}
		})
	}
}

// scratchClear checks the invariants of the slices a store reuses across
// Commits: within their caps and zero up to their capacity, after an
// installed batch and after a refused one alike.
func scratchClear(s *Store) error {
	if err := ownRowsClear(&s.ownRows); err != nil {
		return err
	}
	if c := cap(s.planGroups); c > ownRowsKeepMax {
		return fmt.Errorf("kept plan groups have capacity %d, above %d", c, ownRowsKeepMax)
	}
	for i, g := range s.planGroups[:cap(s.planGroups)] {
		if g.snapshot != nil || g.ents != nil || g.hardState != nil || g.applied != 0 {
			return fmt.Errorf("kept plan group %d of %d is not clear: %+v", i, cap(s.planGroups), g)
		}
	}
	return nil
}

// TestRefusedBatchLeavesScratchClear refuses a batch after its groups were
// planned (a log row that already holds a record): the store is unchanged
// and its reused slices are clear.
func TestRefusedBatchLeavesScratchClear(t *testing.T) {
	s := openMem(t, vfs.NewMem())
	sc := scopeOf("a", 0)
	mustCommit(t, s, fullBatch(sc, 1, 1))
	before := dump(s)
	b := fullBatch(sc, 1, 2)
	b.Log[0].Offset = 1
	if err := s.Commit(b); !errors.Is(err, ErrInvalidBatch) {
		t.Fatalf("a repeated log row: %v, want ErrInvalidBatch", err)
	}
	if err := scratchClear(s); err != nil {
		t.Fatal(err)
	}
	if after := dump(s); after != before {
		t.Fatalf("a refused batch changed the store:\n%s\nwas\n%s", after, before)
	}
}
