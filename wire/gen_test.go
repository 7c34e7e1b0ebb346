package wire

import (
	"reflect"
	"strings"

	"github.com/felixsim/felixsim/felix"
	"pgregory.net/rapid"
)

// Generators of valid values for the round-trip properties. Sizes stay small
// so a property run is quick; the size limits are tested by tables.

func genBytes(minLen, maxLen int) *rapid.Generator[[]byte] {
	return rapid.SliceOfN(rapid.Byte(), minLen, maxLen)
}

func genName() *rapid.Generator[string] {
	return rapid.Map(genBytes(1, 12), func(b []byte) string { return string(b) })
}

// genScopeName draws a scope name: like genName but never holding '/',
// which Scope.Validate refuses.
func genScopeName() *rapid.Generator[string] {
	return rapid.Map(genName(), func(s string) string { return strings.ReplaceAll(s, "/", "_") })
}

func genOp() *rapid.Generator[felix.StateOp] {
	return rapid.Custom(func(t *rapid.T) felix.StateOp {
		op := felix.StateOp{Key: genName().Draw(t, "key")}
		if rapid.Bool().Draw(t, "put") {
			op.Kind = felix.OpPut
			op.Value = genBytes(0, 24).Draw(t, "value")
		} else {
			op.Kind = felix.OpDelete
		}
		return op
	})
}

// genRecord draws a valid record; event < 0 means any event, ops says whether
// state operations may appear, and conditional fixes the flag.
func genRecord(event felix.EventKind, ops bool, conditional bool) *rapid.Generator[felix.Record] {
	return rapid.Custom(func(t *rapid.T) felix.Record {
		r := felix.Record{Event: event, Conditional: conditional}
		if event == felix.EventInvalid {
			r.Event = rapid.SampledFrom([]felix.EventKind{felix.EventPublish, felix.EventEnqueue}).Draw(t, "event")
		}
		r.Payload = genBytes(0, 32).Draw(t, "payload")
		if ops {
			r.Ops = rapid.SliceOfN(genOp(), 0, 6).Draw(t, "ops")
		}
		if conditional {
			r.ExpectedOffset = rapid.Uint64().Draw(t, "expected")
		}
		return r
	})
}

func genAnyRecord() *rapid.Generator[felix.Record] {
	return rapid.Custom(func(t *rapid.T) felix.Record {
		return genRecord(felix.EventInvalid, true, rapid.Bool().Draw(t, "conditional")).Draw(t, "record")
	})
}

func genScope() *rapid.Generator[felix.Scope] {
	return rapid.Custom(func(t *rapid.T) felix.Scope {
		return felix.Scope{
			Tenant:    genScopeName().Draw(t, "tenant"),
			Namespace: genScopeName().Draw(t, "namespace"),
			Stream:    genScopeName().Draw(t, "stream"),
			Shard:     rapid.Uint32().Draw(t, "shard"),
		}
	})
}

func genRequestBody(t *rapid.T) RequestBody {
	anyEvent := felix.EventInvalid
	switch kind := RequestKind(rapid.IntRange(int(RequestPublish), int(requestKindEnd)-1).Draw(t, "kind")); kind {
	case RequestPublish:
		return &Publish{Record: genRecord(felix.EventPublish, false, false).Draw(t, "record")}
	case RequestPublishIf:
		return &PublishIf{Record: genRecord(felix.EventPublish, false, true).Draw(t, "record")}
	case RequestEnqueue:
		return &Enqueue{Record: genRecord(felix.EventEnqueue, false, false).Draw(t, "record")}
	case RequestCommit:
		return &Commit{Record: genRecord(anyEvent, true, false).Draw(t, "record")}
	case RequestCommitIf:
		return &CommitIf{Record: genRecord(anyEvent, true, true).Draw(t, "record")}
	case RequestStateGet:
		return &StateGet{Key: genName().Draw(t, "key")}
	case RequestSubscribeRead:
		return &SubscribeRead{FromOffset: rapid.Uint64().Draw(t, "from"), MaxEntries: rapid.Uint32Range(1, ReadEntriesMax).Draw(t, "max")}
	case RequestGroupFetch:
		return &GroupFetch{Group: genName().Draw(t, "group"), MaxEntries: rapid.Uint32Range(1, ReadEntriesMax).Draw(t, "max"), LeaseNs: rapid.Uint64Min(1).Draw(t, "lease")}
	case RequestGroupAck:
		return &GroupAck{Group: genName().Draw(t, "group"), Offset: rapid.Uint64().Draw(t, "offset")}
	case RequestOutboxRead:
		return &OutboxRead{FromOffset: rapid.Uint64().Draw(t, "from"), MaxEntries: rapid.Uint32Range(1, ReadEntriesMax).Draw(t, "max")}
	case RequestOutboxTrim:
		return &OutboxTrim{ThroughOffset: rapid.Uint64().Draw(t, "through")}
	default:
		panic("unhandled request kind " + kind.String())
	}
}

func genRequest() *rapid.Generator[Request] {
	return rapid.Custom(func(t *rapid.T) Request {
		return Request{ID: rapid.Uint64().Draw(t, "id"), Scope: genScope().Draw(t, "scope"), Body: genRequestBody(t)}
	})
}

func genEntries(t *rapid.T) []felix.Entry {
	n := rapid.IntRange(0, 4).Draw(t, "entries")
	es := make([]felix.Entry, n)
	off := rapid.Uint64Max(1<<40).Draw(t, "first")
	for i := range es {
		es[i] = felix.Entry{Offset: off, Record: genAnyRecord().Draw(t, "record")}
		off += rapid.Uint64Range(1, 3).Draw(t, "gap")
	}
	return es
}

func genAnswerBody(t *rapid.T) AnswerBody {
	switch kind := AnswerKind(rapid.IntRange(int(AnswerWritten), int(AnswerError)).Draw(t, "kind")); kind {
	case AnswerWritten:
		return &Written{Offset: rapid.Uint64().Draw(t, "offset")}
	case AnswerRefused:
		return &Refused{Tail: rapid.Uint64().Draw(t, "tail")}
	case AnswerStateValue:
		if !rapid.Bool().Draw(t, "found") {
			return &StateValue{}
		}
		return &StateValue{Found: true, Value: genBytes(0, 24).Draw(t, "value"), Version: rapid.Uint64().Draw(t, "version")}
	case AnswerEntries:
		return &Entries{Entries: genEntries(t)}
	case AnswerDeliveries:
		return &Deliveries{Entries: genEntries(t), LeaseExpiryNs: rapid.Uint64().Draw(t, "expiry")}
	case AnswerAcked:
		return &Acked{}
	case AnswerError:
		e := &Error{Code: ErrorCode(rapid.IntRange(int(CodeNotLeader), int(errorCodeEnd)-1).Draw(t, "code")), Message: rapid.String().Draw(t, "message")}
		switch e.Code {
		case CodeNotLeader:
			e.LeaderHint = rapid.Uint64().Draw(t, "hint")
		case CodeBeforeWindow:
			e.WindowStart = rapid.Uint64().Draw(t, "start")
		}
		return e
	default:
		panic("unhandled answer kind " + kind.String())
	}
}

func genAnswer() *rapid.Generator[Answer] {
	return rapid.Custom(func(t *rapid.T) Answer {
		return Answer{ID: rapid.Uint64().Draw(t, "id"), Body: genAnswerBody(t)}
	})
}

// normalize maps empty byte slices and lists to nil, the form decoders
// produce, so values compare with reflect.DeepEqual.
func normalize(v any) any {
	switch x := v.(type) {
	case felix.Record:
		return normRecord(x)
	case Request:
		if rec := RecordOf(x.Body); rec != nil {
			*rec = normRecord(*rec)
		}
		return x
	case Answer:
		switch b := x.Body.(type) {
		case *StateValue:
			b.Value = nilIfEmpty(b.Value)
		case *Entries:
			b.Entries = normEntries(b.Entries)
		case *Deliveries:
			b.Entries = normEntries(b.Entries)
		}
		return x
	}
	return v
}

func nilIfEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

func normRecord(r felix.Record) felix.Record {
	r.Payload = nilIfEmpty(r.Payload)
	if len(r.Ops) == 0 {
		r.Ops = nil
	}
	for i := range r.Ops {
		r.Ops[i].Value = nilIfEmpty(r.Ops[i].Value)
	}
	return r
}

func normEntries(es []felix.Entry) []felix.Entry {
	if len(es) == 0 {
		return nil
	}
	for i := range es {
		es[i].Record = normRecord(es[i].Record)
	}
	return es
}

func sameValue(a, b any) bool { return reflect.DeepEqual(normalize(a), normalize(b)) }
