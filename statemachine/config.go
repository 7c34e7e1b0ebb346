package statemachine

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
)

// StreamKind says how a stream's records are kept.
type StreamKind uint8

// Stream kinds. The zero value is invalid so a forgotten field is caught.
const (
	StreamInvalid StreamKind = iota
	// StreamQuorum is replicated through a quorum log: it accepts commits.
	StreamQuorum
	// StreamEphemeral has no log to hold state: it refuses commits and keeps
	// its records in memory only, for live subscribers.
	StreamEphemeral
)

// String names the stream kind.
func (k StreamKind) String() string {
	switch k {
	case StreamQuorum:
		return "quorum"
	case StreamEphemeral:
		return "ephemeral"
	}
	return fmt.Sprintf("StreamKind(%d)", uint8(k))
}

// Caps a Config may not exceed; they bound every structure a Shard grows.
const (
	// RetainedLenCap is the largest RetainedLenMax a Config may ask for.
	RetainedLenCap = 1 << 24
	// GroupsCap is the largest GroupsMax a Config may ask for.
	GroupsCap = 1 << 16
	// LeasesPerGroupCap is the largest LeasesPerGroupMax a Config may ask for.
	LeasesPerGroupCap = 1 << 16
	// GroupNameLenMax is the longest consumer-group name, in bytes.
	GroupNameLenMax = felix.NameLenMax
)

// Config describes one shard; build it by field name.
type Config struct {
	// Scope names the shard.
	Scope felix.Scope
	// Kind is quorum or ephemeral; the zero value is refused.
	Kind StreamKind
	// RetainedLenMax bounds the retained log, in records. When a write would
	// exceed it, the oldest retained record is dropped first (retention by
	// count), exactly as DropBefore would drop it, keys it wrote last
	// included; unless a consumer group has not committed that record: then
	// the write is refused with ErrWindowHeld (nothing written).
	RetainedLenMax int
	// ReplayWindowLenMax bounds the replay window subscribers read from, in
	// records: the most recent ReplayWindowLenMax retained records. Older
	// records leave the window (they stay in the retained log for groups).
	ReplayWindowLenMax int
	// GroupsMax bounds the number of consumer groups; a fetch that would
	// create one more is refused with ErrTooManyGroups.
	GroupsMax int
	// LeasesPerGroupMax bounds a group's in-flight (leased, unacked)
	// records; a fetch hands out no new record while the group is at the cap.
	LeasesPerGroupMax int
}

// ErrInvalidConfig marks a Config refused for its shape.
var ErrInvalidConfig = fmt.Errorf("invalid shard config")

// Validate checks the scope, the kind and that every cap is in range.
func (c *Config) Validate() error {
	if err := c.Scope.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidConfig, err)
	}
	if c.Kind != StreamQuorum && c.Kind != StreamEphemeral {
		return fmt.Errorf("%w: stream kind %d is neither quorum nor ephemeral", ErrInvalidConfig, c.Kind)
	}
	for _, f := range []struct {
		what   string
		v, max int
	}{
		{"RetainedLenMax", c.RetainedLenMax, RetainedLenCap},
		{"ReplayWindowLenMax", c.ReplayWindowLenMax, RetainedLenCap},
		{"GroupsMax", c.GroupsMax, GroupsCap},
		{"LeasesPerGroupMax", c.LeasesPerGroupMax, LeasesPerGroupCap},
	} {
		if f.v < 1 || f.v > f.max {
			return fmt.Errorf("%w: %s is %d, want 1..%d", ErrInvalidConfig, f.what, f.v, f.max)
		}
	}
	return nil
}

// Features is the fleet-feature state an apply runs under; the node passes
// the state its metadata group has committed.
type Features struct {
	// AtomicCommitFinalized is true once an operator has finalized the
	// atomic_commit fleet feature; until then commit records are refused.
	AtomicCommitFinalized bool
}
