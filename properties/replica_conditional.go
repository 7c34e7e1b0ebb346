package properties

// ConditionalOutcome is the answer a commit_if/publish_if got: written at
// Offset, or refused with Offset as the true tail (the next offset).
type ConditionalOutcome struct {
	Event          string
	ExpectedOffset uint64
	Written        bool
	Offset         uint64
}

// ConditionalWrites checks that every conditional record in a replica's
// log sits at its expected offset, that a written answer names the
// expected offset and the replicas hold it there, and that a refused
// answer reports a tail other than the expected offset and wrote nothing.
func ConditionalWrites(outcomes []ConditionalOutcome, rs []ReplicaView) error {
	for i := range rs {
		if err := checkContiguous(rs[i].Name, rs[i].Log); err != nil {
			return err
		}
		for k := range rs[i].Log {
			e := &rs[i].Log[k]
			if e.Conditional && e.Offset != e.ExpectedOffset {
				return InvariantConditionalWrites.Errorf("replica %s holds conditional event %q at offset %d, but it expected offset %d",
					rs[i].Name, e.Event, e.Offset, e.ExpectedOffset)
			}
		}
	}
	for _, o := range outcomes {
		if err := checkOutcome(&o, rs); err != nil {
			return err
		}
	}
	return nil
}

// checkOutcome checks one answer against every replica.
func checkOutcome(o *ConditionalOutcome, rs []ReplicaView) error {
	if o.Written && o.Offset != o.ExpectedOffset {
		return InvariantConditionalWrites.Errorf("event %q expected offset %d but was written at %d",
			o.Event, o.ExpectedOffset, o.Offset)
	}
	if !o.Written && o.Offset == o.ExpectedOffset {
		return InvariantConditionalWrites.Errorf("event %q was refused reporting tail %d, which is the offset it expected",
			o.Event, o.Offset)
	}
	for i := range rs {
		for k := range rs[i].Log {
			e := &rs[i].Log[k]
			if e.Event != o.Event {
				continue
			}
			if !o.Written {
				return InvariantConditionalWrites.Errorf("event %q was refused (tail %d) but replica %s holds it at offset %d",
					o.Event, o.Offset, rs[i].Name, e.Offset)
			}
			if e.Offset != o.Offset {
				return InvariantConditionalWrites.Errorf("event %q was written at %d but replica %s holds it at offset %d",
					o.Event, o.Offset, rs[i].Name, e.Offset)
			}
		}
	}
	return nil
}
