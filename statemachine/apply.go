package statemachine

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
)

// Apply applies one committed record under feat, in three phases: check
// (shape, stream kind, feature gate), condition (publish_if/commit_if) and
// write. Only the write phase changes the shard, and it writes the event
// and every state operation in one step, so no caller can observe one
// without the other.
//
// It returns Written{offset} when the record was written, Refused{tail}
// when a conditional record's expected offset was not the tail, or an
// error (ErrInvalidRecord, ErrEphemeralRefusesCommit,
// ErrFeatureNotFinalized, ErrWindowHeld). A refused or failed apply
// changes nothing.
//
// Apply takes ownership of rec's payload, operations and values: the caller
// must not modify them afterwards.
func (s *Shard) Apply(rec *felix.Record, feat Features) (Result, error) {
	if err := s.check(rec, feat); err != nil {
		return Result{}, err
	}
	if rec.Conditional && rec.ExpectedOffset != s.log.nextOffset {
		return Refused(s.log.nextOffset), nil
	}
	if err := s.checkRoom(); err != nil {
		return Result{}, err
	}
	return Written(s.write(rec)), nil
}

// checkRoom refuses a write to a full retained log whose oldest record a
// consumer group has not committed (ErrWindowHeld): retention by count
// would drop it at this write, and retention never drops a record a live
// group still owes its consumers (see DropBefore). The writer may retry
// once the group has acked past it.
func (s *Shard) checkRoom() error {
	if !s.log.full() {
		return nil
	}
	first := s.log.firstOffset
	if s.GroupsCommittedMin() > first {
		return nil
	}
	for _, name := range s.groups.names() { // the first such name, for the message
		if g := s.groups.m[name]; g.committed <= first {
			return fmt.Errorf("%w: scope %s holds RetainedLenMax %d records and consumer group %q (committed position %d) has not committed offset %d, the oldest",
				ErrWindowHeld, s.cfg.Scope, s.cfg.RetainedLenMax, name, g.committed, first)
		}
	}
	return nil
}

// check refuses a record the shard must not write, whatever its offset.
func (s *Shard) check(rec *felix.Record, feat Features) error {
	if err := rec.Validate(); err != nil {
		return err
	}
	if !rec.IsCommit() {
		return nil
	}
	if s.cfg.Kind == StreamEphemeral {
		return fmt.Errorf("%w (shard %s, %d state operations)", ErrEphemeralRefusesCommit, s.cfg.Scope, len(rec.Ops))
	}
	if !feat.AtomicCommitFinalized {
		return fmt.Errorf("%w (shard %s, %d state operations)", ErrFeatureNotFinalized, s.cfg.Scope, len(rec.Ops))
	}
	return nil
}

// write appends rec to the log and applies its state operations, all at
// one offset, and returns that offset. Nothing in it can fail: every
// refusal happened in check.
func (s *Shard) write(rec *felix.Record) uint64 {
	if s.log.full() {
		s.dropOldest()
	}
	offset := s.log.append(rec)
	s.state.applyOps(rec.Ops, offset)
	return offset
}
