package statemachine

import (
	"fmt"
	"sort"
)

// fetchPlan is what a fetch will hand out, decided before anything changes.
type fetchPlan struct {
	redeliver []int // indexes into the group's leases, ascending
	newFirst  uint64
	newCount  uint64
}

// Fetch applies a GroupFetch: it hands out expired leases first (oldest
// offset first, as redeliveries), then never-delivered records from the
// group's DeliverNextOffset, at most EntriesMax in all and never more than
// LeasesPerGroupMax in flight. Each handed-out record is leased until
// NowNs+LeaseNs. A group is created by its first fetch, positioned at the
// oldest retained record.
//
// A fetch that would hand out a record retention has dropped is refused
// with ErrDropped (an *OffsetError) and changes nothing; so is any other
// refused fetch. The records share their buffers with the shard.
func (s *Shard) Fetch(cmd GroupFetch) ([]Delivery, error) {
	if err := cmd.validate(); err != nil {
		return nil, err
	}
	g, ok := s.groups.m[cmd.Group]
	if !ok {
		if len(s.groups.m) >= s.cfg.GroupsMax {
			return nil, fmt.Errorf("%w: group %q would be number %d, the shard allows %d", ErrTooManyGroups, cmd.Group, len(s.groups.m)+1, s.cfg.GroupsMax)
		}
		g = &group{committed: s.log.firstOffset, deliverNext: s.log.firstOffset}
	}
	plan := s.planFetch(g, &cmd)
	if err := s.checkPlan(g, &plan); err != nil {
		return nil, err
	}
	s.groups.m[cmd.Group] = g
	s.changes.note(true, cmd.Group)
	return s.deliver(cmd.Group, g, &plan, cmd.NowNs+cmd.LeaseNs), nil
}

func (s *Shard) planFetch(g *group, cmd *GroupFetch) fetchPlan {
	var p fetchPlan
	for i := range g.leases {
		if len(p.redeliver) == cmd.EntriesMax {
			break
		}
		if g.leases[i].ExpiryNs <= cmd.NowNs {
			p.redeliver = append(p.redeliver, i)
		}
	}
	room := cmd.EntriesMax - len(p.redeliver)
	if free := s.cfg.LeasesPerGroupMax - len(g.leases); free < room {
		room = free
	}
	p.newFirst = g.deliverNext
	if room > 0 {
		p.newCount = min(uint64(room), s.log.nextOffset-g.deliverNext)
	}
	return p
}

func (s *Shard) checkPlan(g *group, p *fetchPlan) error {
	first := s.log.firstOffset
	if len(p.redeliver) > 0 {
		if o := g.leases[p.redeliver[0]].Offset; o < first {
			return &OffsetError{Err: ErrDropped, Offset: o, StartOffset: first, Tail: s.log.nextOffset}
		}
	}
	if p.newCount > 0 && p.newFirst < first {
		return &OffsetError{Err: ErrDropped, Offset: p.newFirst, StartOffset: first, Tail: s.log.nextOffset}
	}
	return nil
}

// deliver carries out a checked plan.
func (s *Shard) deliver(name string, g *group, p *fetchPlan, expiryNs int64) []Delivery {
	out := make([]Delivery, 0, len(p.redeliver)+int(p.newCount))
	for _, i := range p.redeliver {
		g.leases[i].ExpiryNs = expiryNs
		out = append(out, Delivery{Entry: *s.log.at(g.leases[i].Offset), ExpiryNs: expiryNs, Redelivered: true})
	}
	for o := p.newFirst; o < p.newFirst+p.newCount; o++ {
		g.leases = append(g.leases, Lease{Offset: o, ExpiryNs: expiryNs})
		out = append(out, Delivery{Entry: *s.log.at(o), ExpiryNs: expiryNs})
	}
	g.deliverNext += p.newCount
	if len(g.leases) > s.cfg.LeasesPerGroupMax {
		panic(fmt.Sprintf("group %q: %d leases exceed LeasesPerGroupMax %d", name, len(g.leases), s.cfg.LeasesPerGroupMax))
	}
	g.recompute(name)
	return out
}

// Ack applies a GroupAck: the record's lease ends and the group's
// committed position moves over every contiguous acked offset. Acking an
// offset already acked is accepted and changes nothing (acks may be
// retried); acking an offset never delivered is refused with
// ErrNotDelivered, and an unknown group with ErrUnknownGroup. A late ack
// (after the lease expired) is accepted.
func (s *Shard) Ack(cmd GroupAck) error {
	if err := checkGroupName(cmd.Group); err != nil {
		return err
	}
	g, ok := s.groups.m[cmd.Group]
	if !ok {
		return fmt.Errorf("%w: ack of offset %d for group %q, which has never fetched", ErrUnknownGroup, cmd.Offset, cmd.Group)
	}
	if cmd.Offset >= g.deliverNext {
		return fmt.Errorf("%w: group %q acked offset %d, but has been handed offsets below %d only", ErrNotDelivered, cmd.Group, cmd.Offset, g.deliverNext)
	}
	i := sort.Search(len(g.leases), func(i int) bool { return g.leases[i].Offset >= cmd.Offset })
	if i < len(g.leases) && g.leases[i].Offset == cmd.Offset {
		g.leases = append(g.leases[:i], g.leases[i+1:]...)
		g.recompute(cmd.Group)
		s.changes.note(true, cmd.Group)
	}
	return nil
}

// Groups lists every consumer group's state in ascending name order.
func (s *Shard) Groups() []GroupState {
	names := s.groups.names()
	out := make([]GroupState, len(names))
	for i, n := range names {
		g := s.groups.m[n]
		out[i] = GroupState{
			Name:              n,
			CommittedOffset:   g.committed,
			DeliverNextOffset: g.deliverNext,
			Leases:            append([]Lease(nil), g.leases...),
		}
	}
	return out
}

// GroupsCommittedMin is the lowest committed position over every group,
// or the tail when there are none: the furthest a retention step can drop
// without refusing some group's next fetch with ErrDropped.
func (s *Shard) GroupsCommittedMin() uint64 {
	low := s.log.nextOffset
	for _, g := range s.groups.m { // min is order-independent
		if g.committed < low {
			low = g.committed
		}
	}
	return low
}

// RestartGroups moves every consumer group to the oldest retained record
// with no leases, as if its first fetch came now, and returns their states
// in ascending name order. A stream's new generation uses it once its old
// records are dropped (DropBefore the tail): a group of the old generation
// must neither stay stranded below the window nor hold leases of records
// the new generation never had. Positions only move forward.
func (s *Shard) RestartGroups() []GroupState {
	start := s.log.firstOffset
	for _, name := range s.groups.names() {
		g := s.groups.m[name]
		if g.deliverNext > start || g.committed > start {
			panic(fmt.Sprintf("group %q: restart at %d behind its position (committed %d, next %d)", name, start, g.committed, g.deliverNext))
		}
		g.committed, g.deliverNext, g.leases = start, start, g.leases[:0]
		s.changes.note(true, name)
	}
	return s.Groups()
}
