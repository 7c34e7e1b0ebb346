package properties

// HistoryFailedWroteNothing checks that every sent write recorded failed
// (which the history defines as "certainly had no effect") left no trace:
// no replica's log, in any scope, holds a record with its payload. A
// payload some other write that was not failed also carries (a retry
// shares its original's) may be that write's, so it proves nothing and is
// not checked. Writes refused before sending are RefusedBeforeSending's.
// Payloads identify writes (see HistoryConditionalWrites).
func HistoryFailedWroteNothing(h *History, replicas []ReplicaLog) error {
	v := violations{what: InvariantFailedWriteLeftNoTrace}
	want := map[string]*HistoryOp{}
	mayLand := map[string]bool{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if !op.Kind.IsWrite() {
			continue
		}
		p := string(op.Record.Payload)
		switch {
		case op.Outcome != OutcomeFailed:
			mayLand[p] = true
		case !op.NotSent:
			want[p] = op
		}
	}
	for p := range mayLand { //det:ok deletes only
		delete(want, p)
	}
	if len(want) == 0 {
		return nil
	}
	reportTraces(&v, replicas, want, "recorded failed")
	return v.err()
}
