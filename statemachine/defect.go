package statemachine

import "github.com/felixsim/felixsim/felix"

// ApplyEventFirst is the first half of the partial-apply planted defect
// (a broker that applies a record in two visible steps): it checks and
// writes rec like Apply, but leaves its state operations unapplied, for
// ApplyStateLater. Between the two, a reader sees the record's event
// without its state changes. A correct broker never calls it.
func (s *Shard) ApplyEventFirst(rec *felix.Record, feat Features) (Result, error) {
	if err := s.check(rec, feat); err != nil {
		return Result{}, err
	}
	if rec.Conditional && rec.ExpectedOffset != s.log.nextOffset {
		return Refused(s.log.nextOffset), nil
	}
	return Written(s.log.append(rec)), nil
}

// ApplyStateLater is the second half of the partial-apply defect: it
// applies the state operations of the record ApplyEventFirst wrote at
// offset.
func (s *Shard) ApplyStateLater(ops []felix.StateOp, offset uint64) {
	s.state.applyOps(ops, offset)
}
