package properties

// Retention and the outbox. Retention drops a prefix of a scope's log,
// never an outbox row: only the relay's confirmed trim deletes one, after
// the relay delivered it (docs/atomic-commit.md). OutboxDelivered judges
// the retained window only (the committed records a replica still holds);
// the records retention dropped are judged here, against the offsets they
// had: a relayed scope's log starts at offset 0 and its offsets are
// contiguous, so every offset below the window start was a committed
// record whose event the sink must have received.

// OutboxKeptUntilRelayed checks that, for every scope of ref, the sink
// received every offset below the scope's retained window that the relay
// has gone past: the records retention dropped from the log kept their
// outbox rows until the relay delivered them. The relay has gone past
// offset o when it delivered a later offset (it reads each scope in
// offset order) or, with drained, always (it read every scope to its
// tail). ref's scopes must be ones whose log began at offset 0 and was
// never emptied by a stream's delete (the runner's relayed scopes).
func OutboxKeptUntilRelayed(ref *ReplicaLog, ds []OutboxDelivery, drained bool) error {
	f := outboxFindings{name: InvariantOutboxKeptUntilRelayed}
	got := deliveredOffsets(ds)
	for i := range ref.Scopes {
		v := &ref.Scopes[i]
		bound := v.FirstOffset
		if !drained {
			bound = min(bound, passedOffset(got[v.Scope]))
		}
		missing, lo := uint64(0), uint64(0)
		for o := uint64(0); o < bound; o++ {
			if !got[v.Scope][o] {
				if missing == 0 {
					lo = o
				}
				missing++
			}
		}
		if missing > 0 {
			f.add("scope %s: %d of the records retention dropped from the log below offset %d never reached the sink, which the relay has gone past, the first at offset %d: their outbox rows were gone before the relay delivered them",
				v.Scope, missing, bound, lo)
		}
	}
	return f.err()
}

// passedOffset is one past the highest offset delivered (0: none).
func passedOffset(delivered map[uint64]bool) uint64 {
	next := uint64(0)
	for o := range delivered { //det:ok the maximum is order-independent
		next = max(next, o+1)
	}
	return next
}
