package properties

// StateMatchesLog checks that a replica's state view equals the fold of
// its applied log: each put sets the key to its value at the record's
// offset, each delete removes the key, in log order.
func StateMatchesLog(r *ReplicaView) error {
	if err := checkContiguous(r.Name, r.Log); err != nil {
		return err
	}
	if err := checkSorted(r.Name, r.State); err != nil {
		return err
	}
	want := make([]ViewSlot, 0, len(r.State)+4)
	for i := range r.Log {
		want = applyOps(want, r.Log[i].Ops, r.Log[i].Offset)
	}
	if len(want) != len(r.State) {
		return InvariantStateMatchesLog.Errorf("replica %s state %s, but its log of %d records folds to %s",
			r.Name, formatState(r.State), len(r.Log), formatState(want))
	}
	for i := range want {
		if want[i] != r.State[i] {
			return InvariantStateMatchesLog.Errorf("replica %s state %s, but its log of %d records folds to %s",
				r.Name, formatState(r.State), len(r.Log), formatState(want))
		}
	}
	return nil
}

// VersionIsOffset checks that every key's version is the offset of a
// record in the replica's log that puts that key to that value.
func VersionIsOffset(r *ReplicaView) error {
	if err := checkContiguous(r.Name, r.Log); err != nil {
		return err
	}
	for _, s := range r.State {
		e, ok := entryAt(r.Log, s.Version)
		if !ok {
			return InvariantVersionIsOffset.Errorf("replica %s key %q has version %d, an offset its log (%d records) does not hold",
				r.Name, s.Key, s.Version, len(r.Log))
		}
		if !putsValue(e.Ops, s.Key, s.Value) {
			return InvariantVersionIsOffset.Errorf("replica %s key %q = %q at version %d, but the record at offset %d (event %q) does not put that value",
				r.Name, s.Key, s.Value, s.Version, e.Offset, e.Event)
		}
	}
	return nil
}

// putsValue reports whether ops leave key set to value.
func putsValue(ops []ViewOp, key, value string) bool {
	last := -1
	for i := range ops {
		if ops[i].Key == key {
			last = i
		}
	}
	return last >= 0 && !ops[last].Delete && ops[last].Value == value
}
