package statemachine

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
)

// WindowStart is the first offset a subscriber may read: the start of the
// replay window, which holds the most recent ReplayWindowLenMax retained
// records. As records are written the window slides and the oldest leave
// it (they stay in the retained log for consumer groups until retention
// drops them).
func (s *Shard) WindowStart() uint64 {
	start := s.log.firstOffset
	if n := uint64(s.cfg.ReplayWindowLenMax); s.log.nextOffset-start > n {
		start = s.log.nextOffset - n
	}
	return start
}

// ReadFrom returns up to entriesMax records of the replay window from
// offset on. Reading at the tail returns no entries and no error; reading
// before the window's start is refused with ErrBeforeWindow (never an empty
// result), and past the tail with ErrBeyondTail, both as an *OffsetError
// carrying the readable range. The records share their buffers with the
// shard: do not modify them.
func (s *Shard) ReadFrom(offset uint64, entriesMax int) ([]felix.Entry, error) {
	if entriesMax < 1 {
		return nil, fmt.Errorf("%w: read of %d entries from offset %d, want at least 1", ErrInvalidCommand, entriesMax, offset)
	}
	start := s.WindowStart()
	if offset < start {
		return nil, &OffsetError{Err: ErrBeforeWindow, Offset: offset, StartOffset: start, Tail: s.log.nextOffset}
	}
	if offset > s.log.nextOffset {
		return nil, &OffsetError{Err: ErrBeyondTail, Offset: offset, StartOffset: start, Tail: s.log.nextOffset}
	}
	n := s.log.nextOffset - offset
	if n > uint64(entriesMax) {
		n = uint64(entriesMax)
	}
	out := make([]felix.Entry, n)
	for i := range out {
		out[i] = *s.log.at(offset + uint64(i))
	}
	return out, nil
}
