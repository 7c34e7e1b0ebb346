package properties

// HistoryReadersSeeWholeRecords is NoPartialCommit from the readers' side:
// every entry a subscriber or a consumer group was handed (outcome ok)
// equals, event and every state operation, the record the reference log
// holds at that offset. A reader that saw the event without its state
// changes, or some of them, or a record that the log does not hold there,
// is a violation. ref is the per-scope reference log (LongestLogs).
func HistoryReadersSeeWholeRecords(h *History, ref *ReplicaLog) error {
	v := violations{what: InvariantNoPartialCommit}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Outcome != OutcomeOK || (op.Kind != HistorySubscribe && op.Kind != HistoryGroupFetch) {
			continue
		}
		v.at = op.ID
		l := ref.Scope(op.Scope)
		for j := range op.Entries {
			e := &op.Entries[j]
			if op.Kind == HistorySubscribe && e.Offset != op.FromOffset+uint64(j) {
				v.add("op %d (subscribe on %s from %d) got offset %d as entry %d: a gap or disorder", op.ID, op.Scope, op.FromOffset, e.Offset, j)
			}
			if l == nil {
				v.add("op %d (%s on %s) read offset %d; no replica holds a log for that scope", op.ID, op.Kind, op.Scope, e.Offset)
				continue
			}
			if e.Offset < l.FirstOffset {
				continue
			}
			logged, ok := l.At(e.Offset)
			if !ok {
				v.add("op %d (%s on %s) read offset %d; the log ends before it (next offset %d)", op.ID, op.Kind, op.Scope, e.Offset, l.NextOffset)
				continue
			}
			seen := ViewEntryOf(e.Offset, &e.Record)
			if same, diff := SameRecord(&seen, logged); !same {
				v.add("op %d (%s on %s) read offset %d not as the log holds it: %s", op.ID, op.Kind, op.Scope, e.Offset, diff)
			}
		}
	}
	return v.err()
}
