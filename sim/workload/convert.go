package workload

import (
	"bytes"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/statemachine"
)

// HistoryScopeOf converts a statemachine scope to the history's neutral one.
func HistoryScopeOf(s statemachine.Scope) properties.HistoryScope {
	return properties.HistoryScope{Tenant: s.Tenant, Namespace: s.Namespace, Stream: s.Stream, Shard: s.Shard}
}

// HistoryRecordOf converts a record to the history's neutral form,
// copying its bytes (answers may share buffers with a broker).
func HistoryRecordOf(r *statemachine.Record) properties.HistoryRecord {
	h := properties.HistoryRecord{Enqueue: r.Event == statemachine.EventEnqueue, Payload: bytes.Clone(r.Payload)}
	for _, op := range r.Ops {
		h.Ops = append(h.Ops, properties.HistoryStateOp{Delete: op.Kind == statemachine.OpDelete, Key: op.Key, Value: cloneNonEmpty(op.Value)})
	}
	return h
}

// HistoryEntriesOf converts log entries to the history's neutral form.
func HistoryEntriesOf(es []statemachine.Entry) []properties.HistoryEntry {
	if len(es) == 0 {
		return nil
	}
	out := make([]properties.HistoryEntry, len(es))
	for i := range es {
		out[i] = properties.HistoryEntry{Offset: es[i].Offset, Record: HistoryRecordOf(&es[i].Record)}
	}
	return out
}

// cloneNonEmpty copies b, mapping empty to nil so that histories compare
// equal after an encode/parse round trip.
func cloneNonEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return bytes.Clone(b)
}
