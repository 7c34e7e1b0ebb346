package statemachine

import (
	"fmt"
	"math"
	"sort"

	"github.com/felixsim/felixsim/felix"
)

// GroupFetch asks for work for a consumer group. The proposer chooses
// NowNs; the shard never reads a clock.
type GroupFetch struct {
	Group string
	// NowNs is the time of the fetch; a lease with ExpiryNs <= NowNs has expired.
	NowNs int64
	// LeaseNs is how long each handed-out record stays leased; at least 1.
	LeaseNs int64
	// EntriesMax bounds the records handed out; at least 1.
	EntriesMax int
}

// GroupAck acknowledges one delivered record of a consumer group.
type GroupAck struct {
	Group  string
	Offset uint64
}

// Lease is one in-flight record of a group: delivered, not yet acked.
type Lease struct {
	Offset   uint64
	ExpiryNs int64
}

// Delivery is one record handed out by a fetch, with its lease.
type Delivery struct {
	Entry    felix.Entry
	ExpiryNs int64
	// Redelivered is true when the record's previous lease had expired.
	Redelivered bool
}

// GroupState is a consumer group's position, for snapshots and restores.
type GroupState struct {
	Name string
	// CommittedOffset is the group's position: every offset below it is
	// acked. It equals the oldest lease's offset, or DeliverNextOffset.
	CommittedOffset uint64
	// DeliverNextOffset is the next never-delivered offset.
	DeliverNextOffset uint64
	// Leases are the in-flight records in ascending offset order.
	Leases []Lease
}

// group is one consumer group.
//
// Invariant: leases are in strictly ascending offset order, all below deliverNext.
// Invariant: committed == leases[0].Offset, or deliverNext when there are none.
// Invariant: committed and deliverNext never decrease.
// Invariant: len(leases) <= LeasesPerGroupMax.
type group struct {
	committed   uint64
	deliverNext uint64
	leases      []Lease
}

// groupTable holds the groups by name; list them through names() so map
// order never reaches output.
type groupTable struct {
	m map[string]*group
}

func newGroupTable() groupTable { return groupTable{m: make(map[string]*group)} }

func (t *groupTable) names() []string {
	names := make([]string, 0, len(t.m))
	for n := range t.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func checkGroupName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty group name", ErrInvalidCommand)
	}
	if len(name) > GroupNameLenMax {
		return fmt.Errorf("%w: group name of %d bytes exceeds %d", ErrInvalidCommand, len(name), GroupNameLenMax)
	}
	return nil
}

func (c *GroupFetch) validate() error {
	if err := checkGroupName(c.Group); err != nil {
		return err
	}
	if c.LeaseNs < 1 {
		return fmt.Errorf("%w: group %q fetch with lease of %d ns, want at least 1", ErrInvalidCommand, c.Group, c.LeaseNs)
	}
	if c.NowNs > math.MaxInt64-c.LeaseNs {
		return fmt.Errorf("%w: group %q fetch at %d ns with lease %d ns overflows", ErrInvalidCommand, c.Group, c.NowNs, c.LeaseNs)
	}
	if c.EntriesMax < 1 {
		return fmt.Errorf("%w: group %q fetch of %d entries, want at least 1", ErrInvalidCommand, c.Group, c.EntriesMax)
	}
	return nil
}

// recompute sets committed from the leases and asserts it did not go back.
func (g *group) recompute(name string) {
	c := g.deliverNext
	if len(g.leases) > 0 {
		c = g.leases[0].Offset
	}
	if c < g.committed {
		panic(fmt.Sprintf("group %q: committed position moved back from %d to %d", name, g.committed, c))
	}
	g.committed = c
}
