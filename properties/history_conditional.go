package properties

// HistoryConditionalWrites checks what the history shows of commit_if and
// publish_if: a written one landed exactly at its expected offset (its
// record is there in the reference log); a refused one reported a tail
// other than the expected offset, no further than the log's end, and
// wrote nothing — no record carrying its payload is in the log, except at
// the expected offset when a duplicated request was written first and
// the refusal answers its twin (then the reported tail is past it). The
// reported tail must also cover every write to the scope acknowledged
// before the refused call was invoked: a tail below one of them is not
// the true tail.
// Payloads identify writes: the workload gives every write a payload no
// other write of its scope carries (a retry reuses its original's).
func HistoryConditionalWrites(h *History, ref *ReplicaLog) error {
	v := violations{what: InvariantConditionalWrites}
	acks := collectAcks(h)
	for i := range h.Ops {
		op := &h.Ops[i]
		if !op.Kind.IsConditional() {
			continue
		}
		v.at = op.ID
		l := ref.Scope(op.Scope)
		switch op.Outcome {
		case OutcomeOK:
			if op.Offset != op.Record.ExpectedOffset {
				v.add("op %d (%s on %s) written at %d, expected %d", op.ID, op.Kind, op.Scope, op.Offset, op.Record.ExpectedOffset)
			}
		case OutcomeRefused:
			checkRefused(&v, op, l)
			if floor := acks[op.Scope].floor(op.InvokeNs); op.Tail < floor {
				v.add("op %d (%s on %s) refused with tail %d, but offset %d was acknowledged before it was invoked", op.ID, op.Kind, op.Scope, op.Tail, floor-1)
			}
		}
	}
	return v.err()
}

func checkRefused(v *violations, op *HistoryOp, l *ReplicaView) {
	if op.Tail == op.Record.ExpectedOffset {
		v.add("op %d (%s on %s) refused with tail %d equal to its expected offset", op.ID, op.Kind, op.Scope, op.Tail)
	}
	if l == nil {
		return
	}
	if op.Tail > l.NextOffset {
		v.add("op %d (%s on %s) refused with tail %d beyond the log's end %d", op.ID, op.Kind, op.Scope, op.Tail, l.NextOffset)
	}
	for j := range l.Log {
		e := &l.Log[j]
		if e.Event != string(op.Record.Payload) {
			continue
		}
		if e.Offset == op.Record.ExpectedOffset && op.Tail > op.Record.ExpectedOffset {
			continue // a duplicated request landed; this refusal answers the twin
		}
		v.add("op %d (%s on %s) refused (tail %d, expected %d) but its record is in the log at offset %d", op.ID, op.Kind, op.Scope, op.Tail, op.Record.ExpectedOffset, e.Offset)
	}
}
