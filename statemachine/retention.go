package statemachine

import (
	"errors"
	"fmt"

	"github.com/felixsim/felixsim/felix"
)

// ErrInvalidSnapshot marks rebuild input refused for its shape.
var ErrInvalidSnapshot = errors.New("invalid shard snapshot")

// DropBefore drops every retained record below offset (a retention step)
// and, with each record, every key whose last write it was: the state view
// stays the fold of the retained log (the retention rule; see
// docs/atomic-commit.md), so a replica rebuilt from its retained log and
// one that applied every record hold the same state. Dropping at or below
// FirstOffset changes nothing; past the tail is refused with ErrBeyondTail.
// Dropping past GroupsCommittedMin would strand a group (its next fetch
// that reaches a dropped record is refused with ErrDropped, forever), so
// retention never asks for it: a retention step is clamped to
// GroupsCommittedMin by its caller, and retention by count refuses the
// write instead (ErrWindowHeld). Only a stream's delete drops past it,
// and then restarts the groups (RestartGroups).
func (s *Shard) DropBefore(offset uint64) error {
	if offset > s.log.nextOffset {
		return &OffsetError{Err: ErrBeyondTail, Offset: offset, StartOffset: s.log.firstOffset, Tail: s.log.nextOffset}
	}
	for s.log.firstOffset < offset {
		s.dropOldest()
	}
	s.log.check()
	return nil
}

// dropOldest drops the oldest retained record and forgets every key it
// wrote last: a key whose version is the dropped offset. A later write of
// the key gave it a later version, so it stays.
func (s *Shard) dropOldest() {
	e := s.log.dropOldest()
	for i := range e.Record.Ops {
		k := e.Record.Ops[i].Key
		if v, ok := s.state.m[k]; ok && v.Version == e.Offset {
			delete(s.state.m, k)
			s.state.noteChanged(k)
			s.keysDropped++
		}
	}
}

// KeysDropped counts the keys this shard forgot because retention dropped
// the record that wrote them last (retention loss), since it was built.
// A stream whose retention covers every live key keeps it at zero.
func (s *Shard) KeysDropped() uint64 { return s.keysDropped }

// RebuildInput is what a replica restores a shard from; build it by name.
type RebuildInput struct {
	Config Config
	// StartOffset is the offset of Entries[0], or the tail when Entries is empty.
	StartOffset uint64
	// Entries is the retained log, contiguous from StartOffset. Rebuild takes
	// ownership of the records' buffers.
	Entries []felix.Entry
	// Groups are the consumer-group states kept beside the log (optional).
	Groups []GroupState
}

// Rebuild folds the retained log into a fresh shard and restores the groups.
//
// The rebuilt state equals the state incremental application reached, key
// for key: both are the fold of the retained log. A key whose last write
// was dropped is absent from both (DropBefore forgets it): retention drops
// a prefix, so every earlier write of the key is gone too and no retained
// record mentions it. Records are written as they stand in the log: conditions
// and the feature gate were checked when they were first applied.
func Rebuild(in RebuildInput) (*Shard, error) {
	s, err := newAt(in.Config, in.StartOffset)
	if err != nil {
		return nil, err
	}
	for i := range in.Entries {
		e := &in.Entries[i]
		if e.Offset != s.log.nextOffset {
			return nil, fmt.Errorf("%w: entry %d has offset %d, want %d (log must be contiguous)", ErrInvalidSnapshot, i, e.Offset, s.log.nextOffset)
		}
		if err := e.Record.Validate(); err != nil {
			return nil, fmt.Errorf("%w: entry at offset %d: %v", ErrInvalidSnapshot, e.Offset, err)
		}
		if e.Record.IsCommit() && s.cfg.Kind == StreamEphemeral {
			return nil, fmt.Errorf("%w: entry at offset %d: %v", ErrInvalidSnapshot, e.Offset, ErrEphemeralRefusesCommit)
		}
		s.write(&e.Record)
	}
	if err := s.restoreGroups(in.Groups); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Shard) restoreGroups(states []GroupState) error {
	if len(states) > s.cfg.GroupsMax {
		return fmt.Errorf("%w: %d groups exceed GroupsMax %d", ErrInvalidSnapshot, len(states), s.cfg.GroupsMax)
	}
	for i := range states {
		st := &states[i]
		if err := s.checkGroupState(st); err != nil {
			return fmt.Errorf("%w: group %d (%q): %v", ErrInvalidSnapshot, i, st.Name, err)
		}
		if _, dup := s.groups.m[st.Name]; dup {
			return fmt.Errorf("%w: group %q appears twice", ErrInvalidSnapshot, st.Name)
		}
		s.groups.m[st.Name] = &group{
			committed:   st.CommittedOffset,
			deliverNext: st.DeliverNextOffset,
			leases:      append([]Lease(nil), st.Leases...),
		}
		s.changes.note(true, st.Name)
	}
	return nil
}

func (s *Shard) checkGroupState(st *GroupState) error {
	if err := checkGroupName(st.Name); err != nil {
		return err
	}
	if st.DeliverNextOffset > s.log.nextOffset {
		return fmt.Errorf("deliver-next offset %d beyond tail %d", st.DeliverNextOffset, s.log.nextOffset)
	}
	if len(st.Leases) > s.cfg.LeasesPerGroupMax {
		return fmt.Errorf("%d leases exceed LeasesPerGroupMax %d", len(st.Leases), s.cfg.LeasesPerGroupMax)
	}
	want := st.DeliverNextOffset
	for j, l := range st.Leases {
		if j == 0 {
			want = l.Offset
		}
		if l.Offset >= st.DeliverNextOffset || (j > 0 && l.Offset <= st.Leases[j-1].Offset) {
			return fmt.Errorf("lease %d at offset %d out of order or not below deliver-next %d", j, l.Offset, st.DeliverNextOffset)
		}
	}
	if st.CommittedOffset != want {
		return fmt.Errorf("committed offset %d, want %d (oldest lease or deliver-next)", st.CommittedOffset, want)
	}
	return nil
}
