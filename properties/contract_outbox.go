package properties

import "github.com/felixsim/felixsim/felix"

// The outbox's start (contract_model_outbox.go): a scope's outbox rows are
// [start, next), and only the relay's confirmed trim moves the start,
// never retention. A relay therefore begins at the start, which for a
// scope the relay has never confirmed anything of is offset 0, the scope's
// first record: the sink must receive that first, and each later offset
// for the first time only once every offset below it has come, the ones
// retention dropped from the log included (their events stay in the
// outbox until relayed). OutboxInOrder judges the retained window;
// OutboxFromStart judges the start and the prefix retention dropped, where
// a relay served from the log's window instead of the outbox's start
// skips what it had not relayed yet.

// OutboxFromStart checks, per scope of ref (scopes whose log began at
// offset 0 and was never emptied by a stream's delete: the relayed ones),
// that the sink first received each offset below the scope's retained
// window only after every offset below it: its first delivery is offset 0
// and none skips past an offset retention dropped before it was relayed.
func OutboxFromStart(ref *ReplicaLog, ds []OutboxDelivery) error {
	f := outboxFindings{name: InvariantOutboxFromStart}
	window := map[felix.Scope]uint64{}
	for i := range ref.Scopes {
		window[ref.Scopes[i].Scope] = ref.Scopes[i].FirstOffset
	}
	next := map[felix.Scope]uint64{} // the lowest offset never delivered, every lower one delivered
	for i := range ds {
		d := &ds[i]
		first, relayed := window[d.Scope]
		n := next[d.Scope]
		switch {
		case !relayed:
		case d.Offset > n && n < first:
			f.at = d.Seq
			f.add("scope %s: delivery %d of the sink, %s, came before offset %d, which retention dropped from the log (window from %d) but the outbox held until relayed, was ever delivered: the relay began past the outbox's start",
				d.Scope, d.Seq, d, n, first)
			next[d.Scope] = d.Offset + 1 // report each gap once
		case d.Offset == n:
			next[d.Scope] = n + 1
		}
	}
	return f.err()
}
