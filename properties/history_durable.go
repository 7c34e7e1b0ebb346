package properties

// HistoryAckedOnEveryReplica is CommittedNeverLost seen from the clients:
// every write the history shows acknowledged (outcome ok) is in every
// replica's log at its acknowledged offset, with the same event and state
// operations, and a written conditional write sits at its expected offset.
// An offset below a replica's retained window cannot be checked there and
// is skipped (retention may drop it); everything else missing is a
// violation. Call it on replicas taken after heal and quiesce.
func HistoryAckedOnEveryReplica(h *History, replicas []ReplicaLog) error {
	v := violations{what: InvariantCommittedNeverLost}
	if len(replicas) == 0 {
		for i := range h.Ops {
			if op := &h.Ops[i]; op.Kind.IsWrite() && op.Outcome == OutcomeOK {
				v.at = op.ID
				v.add("op %d (%s on %s) acknowledged at offset %d but no replica to hold it", op.ID, op.Kind, op.Scope, op.Offset)
			}
		}
		return v.err()
	}
	for i := range h.Ops {
		op := &h.Ops[i]
		if !op.Kind.IsWrite() || op.Outcome != OutcomeOK {
			continue
		}
		v.at = op.ID
		if op.Kind.IsConditional() && op.Offset != op.Record.ExpectedOffset {
			v.add("op %d (%s on %s) written at offset %d, expected offset %d", op.ID, op.Kind, op.Scope, op.Offset, op.Record.ExpectedOffset)
		}
		want := ViewEntryOf(op.Offset, op.Record)
		for r := range replicas {
			checkAckedOn(&v, op, &want, &replicas[r])
		}
	}
	return v.err()
}

func checkAckedOn(v *violations, op *HistoryOp, want *ViewEntry, r *ReplicaLog) {
	l := r.Scope(op.Scope)
	if l == nil {
		v.add("op %d (%s) acknowledged at %s offset %d; broker %d holds no log for that scope", op.ID, op.Kind, op.Scope, op.Offset, r.Node)
		return
	}
	if op.Offset < l.FirstOffset {
		return
	}
	e, ok := l.At(op.Offset)
	if !ok {
		v.add("op %d (%s) acknowledged at %s offset %d; broker %d's log ends before it (next offset %d)", op.ID, op.Kind, op.Scope, op.Offset, r.Node, l.NextOffset)
		return
	}
	if same, diff := SameRecord(want, e); !same {
		v.add("op %d (%s) acknowledged at %s offset %d; broker %d holds a different record there: %s", op.ID, op.Kind, op.Scope, op.Offset, r.Node, diff)
	}
}
