package workload

import (
	"bytes"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/statemachine"
)

// HistoryScopeOf converts a statemachine scope to the history's neutral one.
func HistoryScopeOf(s felix.Scope) properties.HistoryScope {
	return properties.HistoryScope{Tenant: s.Tenant, Namespace: s.Namespace, Stream: s.Stream, Shard: s.Shard}
}

// HistoryRecordOf converts a record to the history's neutral form,
// copying its bytes (answers may share buffers with a broker).
func HistoryRecordOf(r *felix.Record) properties.HistoryRecord {
	h := properties.HistoryRecord{Enqueue: r.Event == felix.EventEnqueue, Payload: bytes.Clone(r.Payload)}
	for _, op := range r.Ops {
		h.Ops = append(h.Ops, properties.HistoryStateOp{Delete: op.Kind == felix.OpDelete, Key: op.Key, Value: cloneNonEmpty(op.Value)})
	}
	return h
}

// HistoryEntriesOf converts log entries to the history's neutral form.
func HistoryEntriesOf(es []felix.Entry) []properties.HistoryEntry {
	if len(es) == 0 {
		return nil
	}
	out := make([]properties.HistoryEntry, len(es))
	for i := range es {
		out[i] = properties.HistoryEntry{Offset: es[i].Offset, Record: HistoryRecordOf(&es[i].Record)}
	}
	return out
}

// ReplicaViewOf converts one broker's shard of scope to the view every
// replica and history check reads, named name: the retained window and
// log (events named by payload) and the state view. It is the one
// conversion of a statemachine log to properties' form.
func ReplicaViewOf(name string, scope felix.Scope, sn *statemachine.Snapshot) properties.ReplicaView {
	v := properties.ReplicaView{Name: name, Scope: HistoryScopeOf(scope), FirstOffset: sn.FirstOffset, NextOffset: sn.NextOffset,
		Log: make([]properties.ViewEntry, 0, len(sn.Entries)), State: make([]properties.ViewSlot, 0, len(sn.State))}
	for i := range sn.Entries {
		e := &sn.Entries[i]
		ve := properties.ViewEntry{Offset: e.Offset, HasEvent: e.Record.Event == felix.EventPublish || e.Record.Event == felix.EventEnqueue,
			Enqueue: e.Record.Event == felix.EventEnqueue, Event: string(e.Record.Payload),
			Conditional: e.Record.Conditional, ExpectedOffset: e.Record.ExpectedOffset}
		if len(e.Record.Ops) > 0 {
			ve.Ops = make([]properties.ViewOp, len(e.Record.Ops))
			for j, op := range e.Record.Ops {
				ve.Ops[j] = properties.ViewOp{Delete: op.Kind == felix.OpDelete, Key: op.Key, Value: string(op.Value)}
			}
		}
		v.Log = append(v.Log, ve)
	}
	for _, kv := range sn.State {
		v.State = append(v.State, properties.ViewSlot{Key: kv.Key, Value: string(kv.Value), Version: kv.Version})
	}
	return v
}

// cloneNonEmpty copies b, mapping empty to nil so that histories compare
// equal after an encode/parse round trip.
func cloneNonEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return bytes.Clone(b)
}
