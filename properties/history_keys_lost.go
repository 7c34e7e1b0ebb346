package properties

import (
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/felix"
)

// KeysLost counts the keys a run's clients put (an acknowledged write
// whose record's last operation on the key is a put, and no later
// acknowledged write deleting it) that the reference log's state no
// longer holds, split by why: Retention when every record of the scope
// that touched the key is below the retained window and the key's last
// acknowledged put is too (the retention rule: the state is the fold of
// the retained log, so such a key is gone by design), Other for any other
// absence (a key lost without retention: a violation).
type KeysLost struct {
	Retention int `json:"retention"`
	Other     int `json:"other"`
	// first describes the first key lost otherwise, for the violation.
	first string
}

// Err returns a CommittedNeverLost violation when keys were lost other
// than by retention, or nil.
func (k *KeysLost) Err() error {
	if k.Other == 0 {
		return nil
	}
	if k.Other > 1 {
		return InvariantCommittedNeverLost.Errorf("%s; and %d more key(s) lost without retention", k.first, k.Other-1)
	}
	return InvariantCommittedNeverLost.Errorf("%s", k.first)
}

// Add counts in o, the keys of a part of the history whose scopes all
// come after k's (a history judged in parts, in scope order): the sum,
// with the first key lost otherwise the earliest scope's.
func (k *KeysLost) Add(o KeysLost) {
	if k.Other == 0 {
		k.first = o.first
	}
	k.Retention += o.Retention
	k.Other += o.Other
}

// lastAckedTouch is a key's acknowledged write with the highest offset.
type lastAckedTouch struct {
	offset uint64
	del    bool
	op     uint64
}

// HistoryKeysLost judges every key the history's acknowledged writes put
// against the reference log (see KeysLost).
func HistoryKeysLost(h *History, ref *ReplicaLog) KeysLost {
	last := map[readKey]lastAckedTouch{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if !op.Kind.IsWrite() || op.Outcome != OutcomeOK || op.Record == nil {
			continue
		}
		for key, del := range lastOps(op.Record) { //det:ok each key's entry is updated alone
			k := readKey{op.Scope, key}
			if t, ok := last[k]; !ok || op.Offset >= t.offset {
				last[k] = lastAckedTouch{offset: op.Offset, del: del, op: op.ID}
			}
		}
	}
	keys := make([]readKey, 0, len(last))
	for k := range last { //det:ok sorted below
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].scope.Less(keys[j].scope) || keys[i].scope == keys[j].scope && keys[i].key < keys[j].key
	})
	var out KeysLost
	idx := map[felix.Scope]keyIndex{}
	for _, k := range keys {
		t := last[k]
		if t.del {
			continue
		}
		v := ref.Scope(k.scope)
		if v == nil {
			out.other(fmt.Sprintf("key %q of %s, put by op %d at offset %d: no replica holds a log for the scope", k.key, k.scope, t.op, t.offset))
			continue
		}
		if stateHas(v, k.key) {
			continue
		}
		ki, ok := idx[k.scope]
		if !ok {
			ki = indexKeys(v)
			idx[k.scope] = ki
		}
		touches := ki[k.key]
		switch {
		case len(touches) > 0 && touches[len(touches)-1].del:
			// deleted by a later record (a write whose answer was lost, say)
		case len(touches) == 0 && t.offset < v.FirstOffset:
			out.Retention++
		default:
			out.other(fmt.Sprintf("key %q of %s, put by op %d at offset %d, is absent from the state of the window [%d, %d) though retention did not drop its last write",
				k.key, k.scope, t.op, t.offset, v.FirstOffset, v.NextOffset))
		}
	}
	return out
}

func (k *KeysLost) other(msg string) {
	if k.Other == 0 {
		k.first = msg
	}
	k.Other++
}

// lastOps maps each key rec touches to whether its last operation on it
// is a delete.
func lastOps(rec *felix.Record) map[string]bool {
	out := map[string]bool{}
	for _, op := range rec.Ops {
		out[op.Key] = op.Kind == felix.OpDelete
	}
	return out
}

// stateHas reports whether the view's state holds key.
func stateHas(v *ReplicaView, key string) bool {
	i := sort.Search(len(v.State), func(i int) bool { return v.State[i].Key >= key })
	return i < len(v.State) && v.State[i].Key == key
}
