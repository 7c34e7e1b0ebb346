package properties

import (
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/felix"
)

// ReplicaLog is one broker's replicas of every scope it holds, scopes in
// ascending order: the history checks' grouping of ReplicaView (the
// cluster checks group the same views by scope, see ClusterScopes).
type ReplicaLog struct {
	Node   uint64
	Scopes []ReplicaView
}

// Scope returns the replica's view of scope s, or nil if it has none.
func (r *ReplicaLog) Scope(s felix.Scope) *ReplicaView {
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
	best := map[felix.Scope]*ReplicaView{}
	var keys []felix.Scope
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

// ViewEntryOf converts a record (felix.Record: what a client wrote or
// read) to the log's form, at offset: the one conversion between the
// records of a history and the log entry every check reads.
func ViewEntryOf(offset uint64, r *felix.Record) ViewEntry {
	e := ViewEntry{Offset: offset, HasEvent: r.Event == felix.EventPublish || r.Event == felix.EventEnqueue,
		Enqueue: r.Event == felix.EventEnqueue, Event: string(r.Payload),
		Conditional: r.Conditional, ExpectedOffset: r.ExpectedOffset}
	if len(r.Ops) > 0 {
		e.Ops = make([]ViewOp, len(r.Ops))
		for i, o := range r.Ops {
			e.Ops[i] = ViewOp{Delete: o.Kind == felix.OpDelete, Key: o.Key, Value: string(o.Value)}
		}
	}
	return e
}

// SameRecord reports whether two records carry the same event (kind and
// payload) and state operations, which is all a client sees of a record;
// it returns a description of the first difference. Offsets, HasEvent and
// the condition are not compared.
func SameRecord(a, b *ViewEntry) (bool, string) {
	switch {
	case a.Enqueue != b.Enqueue:
		return false, fmt.Sprintf("event enqueue=%t vs %t", a.Enqueue, b.Enqueue)
	case a.Event != b.Event:
		return false, fmt.Sprintf("payload %q vs %q", a.Event, b.Event)
	case len(a.Ops) != len(b.Ops):
		return false, fmt.Sprintf("%d state ops vs %d", len(a.Ops), len(b.Ops))
	}
	for i := range a.Ops {
		if x, y := a.Ops[i], b.Ops[i]; x != y {
			return false, fmt.Sprintf("state op %d %s vs %s", i, x, y)
		}
	}
	return true, ""
}
