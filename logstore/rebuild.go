package logstore

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/statemachine"
)

// RebuildState folds the retained log of every scope, in offset order, into
// the state table it implies (a put sets the value at version offset, a
// delete removes the key) and returns it as WritePut rows ordered by scope
// then key.
func (s *Store) RebuildState() []StateRow {
	var out []StateRow
	for _, sc := range s.Scopes() {
		m := map[string]StateValue{}
		for _, e := range s.LogScan(sc, 0, 0) {
			for _, op := range e.Record.Ops {
				switch op.Kind {
				case statemachine.OpPut:
					m[op.Key] = StateValue{Value: op.Value, Version: e.Offset}
				case statemachine.OpDelete:
					delete(m, op.Key)
				}
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, StateRow{Kind: WritePut, Scope: sc, Key: k, Value: m[k].Value, Version: m[k].Version})
		}
	}
	return out
}

// CheckStateMatchesLog returns an error naming the first difference between
// the stored state table and RebuildState, or nil if they are equal.
func (s *Store) CheckStateMatchesLog() error {
	var stored []StateRow
	for _, sc := range s.Scopes() {
		stored = append(stored, s.StateScan(sc)...)
	}
	rebuilt := s.RebuildState()
	for i := 0; i < len(stored) || i < len(rebuilt); i++ {
		switch {
		case i >= len(stored):
			return fmt.Errorf("logstore: state table lacks %s key %q (version %d) that the log implies", rebuilt[i].Scope, rebuilt[i].Key, rebuilt[i].Version)
		case i >= len(rebuilt):
			return fmt.Errorf("logstore: state table holds %s key %q (version %d) that the log does not imply", stored[i].Scope, stored[i].Key, stored[i].Version)
		}
		a, b := stored[i], rebuilt[i]
		if a.Scope != b.Scope || a.Key != b.Key || a.Version != b.Version || !bytes.Equal(a.Value, b.Value) {
			return fmt.Errorf("logstore: state row %d is %s %q = %q@%d, the log implies %s %q = %q@%d",
				i, a.Scope, a.Key, a.Value, a.Version, b.Scope, b.Key, b.Value, b.Version)
		}
	}
	return nil
}
