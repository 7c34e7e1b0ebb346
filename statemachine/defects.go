package statemachine

// This file holds the state machine's planted defects: methods a broker
// under a planted defect calls instead of the correct ones (node's
// defects.go decides when); a correct broker never calls them. The state
// machine has no switch of its own.

import (
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/felix"
)

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

// Planted consumer-group defects: each is Ack done wrong, in the shape of
// a real mistake. A correct broker calls Ack and never these.

// AckOldestOnly is the redeliver-acked planted defect (an ack
// implementation that only advances a cumulative position): an ack ends
// the record's lease only when it is the group's oldest lease; an ack of
// any later lease is answered as accepted but forgotten, so the record is
// handed out again when its lease expires although its ack succeeded.
func (s *Shard) AckOldestOnly(cmd GroupAck) error {
	g, err := s.ackTarget(cmd)
	if err != nil || len(g.leases) == 0 || g.leases[0].Offset != cmd.Offset {
		return err
	}
	g.leases = g.leases[1:]
	g.recompute(cmd.Group)
	s.changes.note(true, cmd.Group)
	return nil
}

// AckDropsOlderLeases is the ack-drops-older-leases planted defect (an ack
// read as a cumulative offset commit): acking an offset ends its lease and
// every lease below it, so a record handed out to a consumer that never
// received it (a lost answer) is never handed out again.
func (s *Shard) AckDropsOlderLeases(cmd GroupAck) error {
	g, err := s.ackTarget(cmd)
	if err != nil {
		return err
	}
	i := sort.Search(len(g.leases), func(i int) bool { return g.leases[i].Offset > cmd.Offset })
	if i > 0 {
		g.leases = append(g.leases[:0], g.leases[i:]...)
		g.recompute(cmd.Group)
		s.changes.note(true, cmd.Group)
	}
	return nil
}

// ackTarget checks an ack as Ack does and returns its group.
func (s *Shard) ackTarget(cmd GroupAck) (*group, error) {
	if err := checkGroupName(cmd.Group); err != nil {
		return nil, err
	}
	g, ok := s.groups.m[cmd.Group]
	if !ok {
		return nil, fmt.Errorf("%w: ack of offset %d for group %q, which has never fetched", ErrUnknownGroup, cmd.Offset, cmd.Group)
	}
	if cmd.Offset >= g.deliverNext {
		return nil, fmt.Errorf("%w: group %q acked offset %d, but has been handed offsets below %d only", ErrNotDelivered, cmd.Group, cmd.Offset, g.deliverNext)
	}
	return g, nil
}
