package properties

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ScopeLog is one scope's retained log on one replica, as the history
// checks read it: entries ascending by offset, FirstOffset..NextOffset-1.
type ScopeLog struct {
	Scope       HistoryScope
	FirstOffset uint64
	NextOffset  uint64
	Entries     []HistoryEntry
}

// At returns the entry at offset, or false if it is not retained.
func (l *ScopeLog) At(offset uint64) (*HistoryEntry, bool) {
	if offset < l.FirstOffset || offset >= l.NextOffset {
		return nil, false
	}
	i := offset - l.FirstOffset
	if i >= uint64(len(l.Entries)) || l.Entries[i].Offset != offset {
		return nil, false
	}
	return &l.Entries[i], true
}

// ReplicaLog is every scope's log on one replica, scopes in ascending order.
type ReplicaLog struct {
	Node   uint64
	Scopes []ScopeLog
}

// Scope returns the replica's log of scope s, or nil if it has none.
func (r *ReplicaLog) Scope(s HistoryScope) *ScopeLog {
	i := sort.Search(len(r.Scopes), func(i int) bool { return !r.Scopes[i].Scope.Less(s) })
	if i < len(r.Scopes) && r.Scopes[i].Scope == s {
		return &r.Scopes[i]
	}
	return nil
}

// LongestLogs picks, per scope, the longest log any replica holds: the
// reference the read checks compare against. It is meaningful once
// CommittedPrefixAgreement holds (replicas differ only in length).
func LongestLogs(replicas []ReplicaLog) ReplicaLog {
	best := map[HistoryScope]*ScopeLog{}
	var keys []HistoryScope
	for r := range replicas {
		for i := range replicas[r].Scopes {
			l := &replicas[r].Scopes[i]
			cur, ok := best[l.Scope]
			if !ok {
				keys = append(keys, l.Scope)
			}
			if !ok || l.NextOffset > cur.NextOffset {
				best[l.Scope] = l
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Less(keys[j]) })
	out := ReplicaLog{}
	for _, k := range keys {
		out.Scopes = append(out.Scopes, *best[k])
	}
	return out
}

// SameRecord reports whether two records carry the same event and state
// operations; it returns a description of the first difference.
func SameRecord(a, b *HistoryRecord) (bool, string) {
	switch {
	case a.Enqueue != b.Enqueue:
		return false, fmt.Sprintf("event enqueue=%t vs %t", a.Enqueue, b.Enqueue)
	case !bytes.Equal(a.Payload, b.Payload):
		return false, fmt.Sprintf("payload %q vs %q", a.Payload, b.Payload)
	case len(a.Ops) != len(b.Ops):
		return false, fmt.Sprintf("%d state ops vs %d", len(a.Ops), len(b.Ops))
	}
	for i := range a.Ops {
		x, y := a.Ops[i], b.Ops[i]
		if x.Delete != y.Delete || x.Key != y.Key || !bytes.Equal(x.Value, y.Value) {
			return false, fmt.Sprintf("state op %d %s vs %s", i, x, y)
		}
	}
	return true, ""
}

// String renders the operation as put(key=value) or delete(key).
func (o HistoryStateOp) String() string {
	if o.Delete {
		return "delete(" + o.Key + ")"
	}
	return fmt.Sprintf("put(%s=%q)", o.Key, o.Value)
}

// violationsMax caps the violations one checker lists; the rest are counted.
const violationsMax = 8

// violations collects one checker's findings into one error.
type violations struct {
	what  string
	msgs  []string
	count int
}

func (v *violations) add(format string, args ...any) {
	v.count++
	if len(v.msgs) < violationsMax {
		v.msgs = append(v.msgs, fmt.Sprintf(format, args...))
	}
}

func (v *violations) err() error {
	if v.count == 0 {
		return nil
	}
	s := strings.Join(v.msgs, "; ")
	if v.count > len(v.msgs) {
		s += fmt.Sprintf("; and %d more", v.count-len(v.msgs))
	}
	return errors.New(v.what + ": " + s)
}
