package properties

import (
	"slices"
	"strings"
)

// Consumer groups in the contract model: the lease rule of
// docs/atomic-commit.md, exactly. A fetch carries now (the proposing
// broker's clock) and lease; applied to a group it hands out, up to its
// entry cap and the group's lease cap:
//
//  1. every leased, unacknowledged offset whose expiry is at or before
//     now, oldest first, each re-leased until now + lease;
//  2. then never-handed-out offsets from the group's next offset upward,
//     each leased until now + lease.
//
// A group is created by its first fetch at the oldest retained record. An
// ack of a leased offset ends its lease, of an acked one changes nothing,
// of one never handed out is refused. The committed position is the
// oldest leased offset, or the next offset when nothing is leased. A fetch
// that would hand out a record retention dropped is refused (BeforeWindow)
// and changes nothing.

// LeaseExpired is the lease rule's test: a lease expiring at expiryNs has
// expired for a fetch whose command carries nowNs.
func LeaseExpired(expiryNs, nowNs int64) bool { return expiryNs <= nowNs }

// group returns the named group's state, or nil.
func (s *ContractScope) group(name string) *GroupView {
	for i := range s.groups {
		if s.groups[i].Name == name {
			return &s.groups[i]
		}
	}
	return nil
}

// Fetch applies a group fetch of at most entriesMax records at nowNs
// (the proposer's clock) leasing each for leaseNs.
func (s *ContractScope) Fetch(name string, nowNs, leaseNs int64, entriesMax int) ContractAnswer {
	if a, refused := s.readRefusal(); refused {
		return a
	}
	g := s.group(name)
	created := GroupView{Name: name, CommittedOffset: s.first, DeliverNextOffset: s.first}
	if g == nil {
		g = &created
	}
	var redeliver []int
	for i := range g.Leases {
		if len(redeliver) < entriesMax && LeaseExpired(g.Leases[i].ExpiryNs, nowNs) {
			redeliver = append(redeliver, i)
		}
	}
	room := entriesMax - len(redeliver)
	if s.cfg.LeasesPerGroupMax > 0 {
		room = min(room, s.cfg.LeasesPerGroupMax-len(g.Leases))
	}
	newCount := uint64(0)
	if room > 0 {
		newCount = min(uint64(room), s.next-g.DeliverNextOffset)
	}
	if len(redeliver) > 0 && g.Leases[redeliver[0]].Offset < s.first || newCount > 0 && g.DeliverNextOffset < s.first {
		return ContractAnswer{Answer: AnswerBeforeWindow, WindowStart: s.first}
	}
	if g == &created {
		s.groups = append(s.groups, created)
		g = &s.groups[len(s.groups)-1]
	}
	expiry := nowNs + leaseNs
	a := ContractAnswer{Answer: AnswerDeliveries, LeaseExpiryNs: expiry}
	for _, i := range redeliver {
		g.Leases[i].ExpiryNs = expiry
		a.Entries = append(a.Entries, *s.at(g.Leases[i].Offset))
	}
	for o := g.DeliverNextOffset; o < g.DeliverNextOffset+newCount; o++ {
		g.Leases = append(g.Leases, GroupLease{Offset: o, ExpiryNs: expiry})
		a.Entries = append(a.Entries, *s.at(o))
	}
	g.DeliverNextOffset += newCount
	g.recommit()
	return a
}

// Ack applies a group ack of offset.
func (s *ContractScope) Ack(name string, offset uint64) ContractAnswer {
	if a, refused := s.readRefusal(); refused {
		return a
	}
	g := s.group(name)
	if g == nil || offset >= g.DeliverNextOffset {
		return ContractAnswer{Answer: AnswerInvalidRequest} // never handed out
	}
	if i := slices.IndexFunc(g.Leases, func(l GroupLease) bool { return l.Offset == offset }); i >= 0 {
		g.Leases = slices.Delete(g.Leases, i, i+1)
		g.recommit()
	}
	return ContractAnswer{Answer: AnswerAcked}
}

// recommit sets the committed position from the leases.
func (g *GroupView) recommit() {
	g.CommittedOffset = g.DeliverNextOffset
	if len(g.Leases) > 0 {
		g.CommittedOffset = g.Leases[0].Offset
	}
}

// Groups is the scope's consumer groups, ascending by name, as copies.
func (s *ContractScope) Groups() []GroupView {
	out := make([]GroupView, len(s.groups))
	for i := range s.groups {
		out[i] = s.groups[i]
		out[i].Leases = slices.Clone(s.groups[i].Leases)
	}
	slices.SortFunc(out, func(a, b GroupView) int { return strings.Compare(a.Name, b.Name) })
	return out
}
