package workload

import (
	"bytes"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/statemachine"
)

// historyRecordOf copies a record read from a broker into the history,
// copying its bytes (answers may share buffers with a broker). The history
// keeps what a reader sees: the event as enqueue or else publish, the state
// operations, and no condition (the encoding carries none for reads).
func historyRecordOf(r *felix.Record) felix.Record {
	h := felix.Record{Event: felix.EventPublish, Payload: bytes.Clone(r.Payload)}
	if r.Event == felix.EventEnqueue {
		h.Event = felix.EventEnqueue
	}
	for _, op := range r.Ops {
		h.Ops = append(h.Ops, felix.StateOp{Kind: op.Kind, Key: op.Key, Value: cloneNonEmpty(op.Value)})
	}
	return h
}

// historyEntriesOf copies log entries read from a broker into the history.
func historyEntriesOf(es []felix.Entry) []felix.Entry {
	if len(es) == 0 {
		return nil
	}
	out := make([]felix.Entry, len(es))
	for i := range es {
		out[i] = felix.Entry{Offset: es[i].Offset, Record: historyRecordOf(&es[i].Record)}
	}
	return out
}

// ReplicaViewOf converts one broker's shard of scope to the view every
// replica and history check reads, named name: the retained window and
// log (events named by payload, through properties.ViewEntryOf) and the
// state view. It is the one conversion of a statemachine log to
// properties' form.
func ReplicaViewOf(name string, scope felix.Scope, sn *statemachine.Snapshot) properties.ReplicaView {
	v := properties.ReplicaView{Name: name, Scope: scope, FirstOffset: sn.FirstOffset, NextOffset: sn.NextOffset,
		Log: make([]properties.ViewEntry, 0, len(sn.Entries)), State: make([]properties.ViewSlot, 0, len(sn.State))}
	for i := range sn.Entries {
		v.Log = append(v.Log, properties.ViewEntryOf(sn.Entries[i].Offset, &sn.Entries[i].Record))
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
