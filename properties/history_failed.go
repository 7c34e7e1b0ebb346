package properties

// HistoryFailedWroteNothing checks that every sent write recorded failed
// (which the history defines as "certainly had no effect") left no trace:
// none of its requests landed, in any scope, on any broker, by the
// brokers' own account of what they applied (l: a record sits in a
// replica's log only once some broker applied it, whatever retention did
// to it since). Landings are matched to the write by its requests' ids,
// so a failed write is judged even when another write carries the same
// payload (a retry carries its original's). A write whose requests the
// history did not record, and a ledger that overflowed, are not judged.
// Writes refused before sending are RefusedBeforeSending's.
func HistoryFailedWroteNothing(h *History, l *Ledger) error {
	if l == nil || l.Overflowed {
		return nil
	}
	x := l.index()
	v := violations{what: InvariantFailedWriteLeftNoTrace}
	sentRequests(h, func(op *HistoryOp, i int) {
		v.at = op.ID
		if op.Outcome != OutcomeFailed {
			return
		}
		q := &op.Requests[i]
		if landed := x.landed(op.Client, q.ID); len(landed) > 0 {
			v.add("op %d (%s by client %d on %s) was recorded failed (%s), yet its request %d (to broker %d, answered %s) landed: %s",
				op.ID, op.Kind, op.Client, op.Scope, op.Error, q.ID, q.Broker, q.Answer, landingsOf(landed))
		}
	})
	return v.err()
}
