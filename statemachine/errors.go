package statemachine

import (
	"errors"
	"fmt"
)

// Sentinel errors, one per reason a shard refuses something. Test with
// errors.Is; the node maps each to a wire error code.
var (
	// ErrEphemeralRefusesCommit refuses a commit record on an ephemeral
	// stream, which has no log to hold state.
	ErrEphemeralRefusesCommit = errors.New("ephemeral stream refuses commits: it has no log to hold state")
	// ErrFeatureNotFinalized refuses a commit record while the atomic_commit
	// fleet feature is not finalized.
	ErrFeatureNotFinalized = errors.New("commit refused: the atomic_commit fleet feature is not finalized")
	// ErrBeforeWindow refuses a subscriber read from an offset older than
	// the replay window's start.
	ErrBeforeWindow = errors.New("read before the replay window's start")
	// ErrDropped refuses a read of an offset that retention has dropped.
	ErrDropped = errors.New("offset dropped by retention")
	// ErrBeyondTail refuses a read or a retention point past the shard's tail.
	ErrBeyondTail = errors.New("offset beyond the shard's tail")
	// ErrInvalidCommand marks a group or read command refused for its shape.
	ErrInvalidCommand = errors.New("invalid command")
	// ErrUnknownGroup refuses an ack for a group that has never fetched.
	ErrUnknownGroup = errors.New("unknown consumer group")
	// ErrTooManyGroups refuses a fetch that would create a group past GroupsMax.
	ErrTooManyGroups = errors.New("too many consumer groups")
	// ErrWindowHeld refuses a write to a full retained log whose oldest
	// record a consumer group has not committed: retention by count would
	// drop a record the group still owes.
	ErrWindowHeld = errors.New("retained log full: its oldest record is not committed by every consumer group")
	// ErrNotDelivered refuses an ack of an offset the group was never handed.
	ErrNotDelivered = errors.New("ack of an offset never delivered to the group")
)

// OffsetError is a refusal about an offset; it carries the offsets a caller
// needs to recover (for ErrBeforeWindow and ErrDropped, where to restart).
type OffsetError struct {
	// Err is the sentinel: ErrBeforeWindow, ErrDropped or ErrBeyondTail.
	Err error
	// Offset is the offset asked for.
	Offset uint64
	// StartOffset is the first offset still readable (window or retained log).
	StartOffset uint64
	// Tail is the shard's next offset.
	Tail uint64
}

// Error says which offset was refused, why, and what range is readable.
func (e *OffsetError) Error() string {
	return fmt.Sprintf("%v: offset %d, readable from %d up to tail %d", e.Err, e.Offset, e.StartOffset, e.Tail)
}

// Unwrap returns the sentinel so errors.Is works.
func (e *OffsetError) Unwrap() error { return e.Err }
