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
// received every offset below the scope's retained window (0 up to its
// FirstOffset): the records retention dropped from the log kept their
// outbox rows until the relay delivered them. ref's scopes must be ones
// whose log began at offset 0 and was never emptied by a stream's delete
// (the runner's relayed scopes); call it only once the relay drained.
func OutboxKeptUntilRelayed(ref *ReplicaLog, ds []OutboxDelivery) error {
	f := outboxFindings{name: InvariantOutboxKeptUntilRelayed}
	got := deliveredOffsets(ds)
	for i := range ref.Scopes {
		v := &ref.Scopes[i]
		missing, lo := uint64(0), uint64(0)
		for o := uint64(0); o < v.FirstOffset; o++ {
			if !got[v.Scope][o] {
				if missing == 0 {
					lo = o
				}
				missing++
			}
		}
		if missing > 0 {
			f.add("scope %s: %d of the %d records retention dropped from the log (offsets 0..%d) never reached the sink, the first at offset %d: their outbox rows were gone before the relay delivered them",
				v.Scope, missing, v.FirstOffset, v.FirstOffset-1, lo)
		}
	}
	return f.err()
}
