package properties

// AckedWrite is a write a client was told landed at Offset.
type AckedWrite struct {
	Event  string
	Offset uint64
}

// CommittedPrefixAgreement checks that no two replicas hold different
// records at the same offset of their applied (so committed) logs.
func CommittedPrefixAgreement(rs []ReplicaView) error {
	for i := range rs {
		if err := checkContiguous(rs[i].Name, rs[i].Log); err != nil {
			return err
		}
	}
	for i := range rs {
		for j := i + 1; j < len(rs); j++ {
			if err := agreeOn(&rs[i], &rs[j]); err != nil {
				return err
			}
		}
	}
	return nil
}

// agreeOn compares two replicas on the offsets both hold.
func agreeOn(a, b *ReplicaView) error {
	for k := range a.Log {
		eb, ok := entryAt(b.Log, a.Log[k].Offset)
		if !ok {
			continue
		}
		if !sameEntry(&a.Log[k], eb) {
			return InvariantCommittedPrefixAgreement.Errorf("at offset %d replica %s holds event %q, replica %s holds event %q (ops %v vs %v)",
				eb.Offset, a.Name, a.Log[k].Event, b.Name, eb.Event, a.Log[k].Ops, eb.Ops)
		}
	}
	return nil
}

// sameEntry reports whether two entries are the same record.
func sameEntry(a, b *ViewEntry) bool {
	if a.Offset != b.Offset || a.HasEvent != b.HasEvent || a.Event != b.Event ||
		a.Conditional != b.Conditional || a.ExpectedOffset != b.ExpectedOffset || len(a.Ops) != len(b.Ops) {
		return false
	}
	for i := range a.Ops {
		if a.Ops[i] != b.Ops[i] {
			return false
		}
	}
	return true
}

// CommittedNeverLost checks that every acknowledged write is, on every
// replica whose log reaches its offset, the record at that offset.
func CommittedNeverLost(acks []AckedWrite, rs []ReplicaView) error {
	for i := range rs {
		if err := checkContiguous(rs[i].Name, rs[i].Log); err != nil {
			return err
		}
	}
	for _, a := range acks {
		for i := range rs {
			e, ok := entryAt(rs[i].Log, a.Offset)
			if !ok {
				continue
			}
			if e.Event != a.Event || !e.HasEvent {
				return InvariantCommittedNeverLost.Errorf("write %q was acknowledged at offset %d, but replica %s holds event %q there",
					a.Event, a.Offset, rs[i].Name, e.Event)
			}
		}
	}
	return nil
}
