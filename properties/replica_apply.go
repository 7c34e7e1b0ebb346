package properties

// StateLookup reads one key of a replica's state view as it is now: its
// value and version, and false when the key is absent.
type StateLookup func(key string) (value string, version uint64, found bool)

// AppliedWhole checks one record right after a replica applied it, while
// the run goes on: the record e is in the replica's log at its offset
// (logged is what the log holds there, false if nothing), and the state
// view shows, at every key e writes, e's last operation on that key at
// version e.Offset. Anything else is a moment where a reader on that
// broker could see the event without its state changes, or the reverse.
func AppliedWhole(replica string, e *ViewEntry, logged *ViewEntry, state StateLookup) error {
	if logged == nil {
		return InvariantNoPartialCommit.Errorf("replica %s applied the record at offset %d (event %q) but its log holds nothing there", replica, e.Offset, e.Event)
	}
	if logged.Event != e.Event || len(logged.Ops) != len(e.Ops) {
		return InvariantNoPartialCommit.Errorf("replica %s applied event %q with %d state operations at offset %d, but its log holds event %q with %d there",
			replica, e.Event, len(e.Ops), e.Offset, logged.Event, len(logged.Ops))
	}
	for i := range e.Ops {
		if lastOpOn(e.Ops, e.Ops[i].Key) != i {
			continue // a later operation of the record wins this key
		}
		op := &e.Ops[i]
		value, version, found := state(op.Key)
		switch {
		case op.Delete && found:
			return InvariantNoPartialCommit.Errorf("replica %s applied offset %d (event %q, %s) but its state still holds %s=%q at version %d",
				replica, e.Offset, e.Event, op, op.Key, value, version)
		case !op.Delete && (!found || value != op.Value || version != e.Offset):
			return InvariantNoPartialCommit.Errorf("replica %s applied offset %d (event %q, %s) but its state holds %s=%q at version %d (found %t)",
				replica, e.Offset, e.Event, op, op.Key, value, version, found)
		}
	}
	return nil
}

// lastOpOn is the index of the last operation on key in ops, or -1.
func lastOpOn(ops []ViewOp, key string) int {
	last := -1
	for i := range ops {
		if ops[i].Key == key {
			last = i
		}
	}
	return last
}
