package properties

// HistoryNotSentWroteNothing checks that a write the client refused
// before sending anything (a commit naming two streams is refused with
// NotOnOwningShard, say) left no trace: no replica's log, in any scope,
// holds a record with its payload. Payloads identify writes (see
// HistoryConditionalWrites).
func HistoryNotSentWroteNothing(h *History, replicas []ReplicaLog) error {
	v := violations{what: InvariantRefusedBeforeSending}
	want := map[string]*HistoryOp{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind.IsWrite() && op.NotSent {
			want[string(op.Record.Payload)] = op
		}
	}
	if len(want) == 0 {
		return nil
	}
	reportTraces(&v, replicas, want, "refused before sending")
	return v.err()
}

// reportTraces adds a finding to v for every record of a write in want
// (by payload) that some replica's log holds, in any scope: such a write
// was recorded as having had no effect (how says why).
func reportTraces(v *violations, replicas []ReplicaLog, want map[string]*HistoryOp, how string) {
	for r := range replicas {
		v.at = uint64(r)
		for s := range replicas[r].Scopes {
			l := &replicas[r].Scopes[s]
			for e := range l.Log {
				if op, ok := want[l.Log[e].Event]; ok {
					v.add("op %d (%s on %s) was %s (%s), yet broker %d holds its record at %s offset %d",
						op.ID, op.Kind, op.Scope, how, op.Error, replicas[r].Node, l.Scope, l.Log[e].Offset)
				}
			}
		}
	}
}
