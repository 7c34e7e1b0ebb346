package properties

// StateLookup reads one key of a replica's state view as it is now: its
// value and version, and false when the key is absent.
type StateLookup func(key string) (value string, version uint64, found bool)

// AppliedWhole checks one record right after a replica applied it at
// offset, while the run goes on: logged is what the replica's log holds
// at offset (nil if nothing); it must carry an event, and the state view
// must show, at every key the record writes, its last operation on that
// key at version offset. Anything else is a moment where a reader on that
// broker could see the event without its state changes, or the reverse.
func AppliedWhole(replica string, offset uint64, logged *ViewEntry, state StateLookup) error {
	if logged == nil {
		return InvariantNoPartialCommit.Errorf("replica %s applied a record at offset %d but its log holds nothing there", replica, offset)
	}
	if !logged.HasEvent {
		return InvariantNoPartialCommit.Errorf("replica %s applied offset %d, whose logged record has %d state operations and no event", replica, offset, len(logged.Ops))
	}
	for i := range logged.Ops {
		if lastOpOn(logged.Ops, logged.Ops[i].Key) != i {
			continue // a later operation of the record wins this key
		}
		op := &logged.Ops[i]
		value, version, found := state(op.Key)
		switch {
		case op.Delete && found:
			return InvariantNoPartialCommit.Errorf("replica %s applied offset %d (event %q, %s) but its state still holds %s=%q at version %d",
				replica, offset, logged.Event, op, op.Key, value, version)
		case !op.Delete && (!found || value != op.Value || version != offset):
			return InvariantNoPartialCommit.Errorf("replica %s applied offset %d (event %q, %s) but its state holds %s=%q at version %d (found %t)",
				replica, offset, logged.Event, op, op.Key, value, version, found)
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
