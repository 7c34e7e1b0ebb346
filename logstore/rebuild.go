package logstore

import (
	"bytes"
	"fmt"

	"github.com/felixsim/felixsim/felix"
)

// RebuildState folds the retained log of scope, in offset order, into the
// state table it implies (a put sets the value at version offset, a delete
// removes the key) and returns it as WritePut rows in key order.
func (s *Store) RebuildState(scope felix.Scope) []StateRow {
	m := map[string]StateValue{}
	for _, e := range s.LogScan(scope, 0, 0) {
		for _, op := range e.Record.Ops {
			switch op.Kind {
			case felix.OpPut:
				m[op.Key] = StateValue{Value: op.Value, Version: e.Offset}
			case felix.OpDelete:
				delete(m, op.Key)
			}
		}
	}
	return stateRowsSorted(scope, m)
}

// CheckStateMatchesLog returns an error naming the first difference between
// the stored state table and RebuildState in the given scopes (every scope
// when none is given), or nil if they are equal.
func (s *Store) CheckStateMatchesLog(scopes ...felix.Scope) error {
	if len(scopes) == 0 {
		scopes = s.Scopes()
	}
	for _, sc := range scopes {
		if err := diffState(s.StateScan(sc), s.RebuildState(sc)); err != nil {
			return fmt.Errorf("logstore: scope %s: %w", sc, err)
		}
	}
	return nil
}

func diffState(stored, rebuilt []StateRow) error {
	for i := 0; i < len(stored) || i < len(rebuilt); i++ {
		switch {
		case i >= len(stored):
			return fmt.Errorf("state table lacks key %q (version %d) that the log implies", rebuilt[i].Key, rebuilt[i].Version)
		case i >= len(rebuilt):
			return fmt.Errorf("state table holds key %q (version %d) that the log does not imply", stored[i].Key, stored[i].Version)
		}
		a, b := stored[i], rebuilt[i]
		if a.Key != b.Key || a.Version != b.Version || !bytes.Equal(a.Value, b.Value) {
			return fmt.Errorf("state row %d is %q = %q@%d, the log implies %q = %q@%d",
				i, a.Key, a.Value, a.Version, b.Key, b.Value, b.Version)
		}
	}
	return nil
}
