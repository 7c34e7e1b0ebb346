package statemachine

import (
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/felix"
)

// Versioned is a keyed-state value with its version: the offset of the
// record that last wrote the key.
type Versioned struct {
	Value   []byte
	Version uint64
}

// KeyValue is one key of a state listing.
type KeyValue struct {
	Key     string
	Value   []byte
	Version uint64
}

// keyedState is a stream shard's keyed state view: key -> (value, version).
// There is no cap on keys beyond the retained log: every live key was
// written by a record the log held, and each record holds at most
// OpsPerRecordMax keys.
type keyedState struct {
	m map[string]Versioned
	// changes notes every key written or deleted (the shard's; nil in a
	// keyedState of no shard).
	changes *changeRing
}

func newKeyedState() keyedState { return keyedState{m: make(map[string]Versioned)} }

// applyOps applies ops in order, at version offset.
func (s *keyedState) applyOps(ops []felix.StateOp, offset uint64) {
	for i := range ops {
		op := &ops[i]
		switch op.Kind {
		case felix.OpPut:
			s.m[op.Key] = Versioned{Value: op.Value, Version: offset}
		case felix.OpDelete:
			delete(s.m, op.Key)
		default:
			panic(fmt.Sprintf("applyOps: op %d kind %d on key %q at offset %d passed validation", i, op.Kind, op.Key, offset))
		}
		s.noteChanged(op.Key)
	}
}

// noteChanged notes key as written or deleted.
func (s *keyedState) noteChanged(key string) {
	if s.changes != nil {
		s.changes.note(false, key)
	}
}

// list returns every key in ascending key order.
func (s *keyedState) list() []KeyValue {
	keys := make([]string, 0, len(s.m))
	for k := range s.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]KeyValue, len(keys))
	for i, k := range keys {
		v := s.m[k]
		out[i] = KeyValue{Key: k, Value: v.Value, Version: v.Version}
	}
	return out
}
