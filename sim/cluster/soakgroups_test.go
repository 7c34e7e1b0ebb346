package cluster

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/wire"
)

// groupName is the loader's consumer group.
const groupName = "workers"

// Request id bases of the loader's group traffic.
const (
	fetchIDBase = 2 << 40
	ackIDBase   = 3 << 40
)

// groupLoad is the consumer-group half of the loader: fetches with a short
// lease, an ack for every delivered record, and a record of every offset
// delivered per scope. A position watcher checks, on every running
// replica, that a group's committed position never moves backwards,
// across failovers and restarts.
type groupLoad struct {
	fetches    map[uint64]felix.Scope
	delivered  map[felix.Scope]map[uint64]bool
	deliveredN int
	nextID     uint64
	// posMax is the highest committed position seen per (broker, scope).
	posMax     map[posKey]uint64
	violations []string
}

type posKey struct {
	broker uint64
	scope  felix.Scope
}

func newGroupLoad() groupLoad {
	return groupLoad{fetches: map[uint64]felix.Scope{}, delivered: map[felix.Scope]map[uint64]bool{}, posMax: map[posKey]uint64{}}
}

func (g *groupLoad) fetch(l *loader, sc felix.Scope, to uint64) {
	if len(g.fetches) >= loaderSentMax {
		return
	}
	g.nextID++
	id := fetchIDBase + g.nextID
	g.fetches[id] = sc
	l.env.Send(SimID(to), &RequestMsg{Req: &wire.Request{ID: id, Scope: sc, Body: &wire.GroupFetch{Group: groupName, MaxEntries: 4, LeaseNs: 300_000_000}}})
}

// receive handles a fetch answer (acks' answers are ignored); it reports
// whether the answer was the group load's.
func (g *groupLoad) receive(l *loader, from int, a *wire.Answer) bool {
	if a.ID >= ackIDBase {
		return true
	}
	sc, ok := g.fetches[a.ID]
	if !ok {
		return a.ID >= fetchIDBase
	}
	delete(g.fetches, a.ID)
	d, ok := a.Body.(*wire.Deliveries)
	if !ok {
		if e, isErr := a.Body.(*wire.Error); isErr && e.Code == wire.CodeNotLeader {
			l.hint[sc.Shard] = e.LeaderHint
		}
		return true
	}
	if g.delivered[sc] == nil {
		g.delivered[sc] = map[uint64]bool{}
	}
	for _, e := range d.Entries {
		g.delivered[sc][e.Offset] = true
		g.deliveredN++
		g.nextID++
		l.env.Send(from, &RequestMsg{Req: &wire.Request{ID: ackIDBase + g.nextID, Scope: sc, Body: &wire.GroupAck{Group: groupName, Offset: e.Offset}}})
	}
	return true
}

// watchPositions samples every running replica's group positions every
// 100 ms of virtual time until untilNs.
func watchPositions(c *Cluster, l *loader, untilNs int64) {
	var tick func()
	tick = func() {
		l.groups.sample(c)
		if next := c.World.NowNs() + 100_000_000; next < untilNs {
			c.World.At(next, 0x9051, tick)
		}
	}
	c.World.At(c.World.NowNs(), 0x9051, tick)
}

func (g *groupLoad) sample(c *Cluster) {
	for b := uint64(1); b <= uint64(c.Brokers()); b++ {
		n := c.Node(b)
		if n == nil {
			continue
		}
		for _, sg := range n.ConsumerGroups() {
			for _, gs := range sg.Groups {
				k := posKey{broker: b, scope: sg.Scope}
				if prev := g.posMax[k]; gs.CommittedOffset < prev && len(g.violations) < loaderViolationsMax {
					g.violations = append(g.violations, fmt.Sprintf("broker %d %s: group %q position moved back from %d to %d", b, sg.Scope, gs.Name, prev, gs.CommittedOffset))
				}
				g.posMax[k] = max(g.posMax[k], gs.CommittedOffset)
			}
		}
	}
}

// check: positions never moved back, and every offset below a replica's
// committed group position was delivered to the loader at least once.
func (g *groupLoad) check(c *Cluster) error {
	if len(g.violations) > 0 {
		return fmt.Errorf("%d position regressions, first: %s", len(g.violations), g.violations[0])
	}
	for _, r := range c.Snapshot().Replicas {
		for _, gv := range r.RaftGroups {
			for _, sv := range gv.Scopes {
				for _, gs := range sv.Shard.Groups {
					for o := sv.Shard.FirstOffset; o < gs.CommittedOffset; o++ {
						if !g.delivered[sv.Scope][o] {
							return fmt.Errorf("broker %d %s: group %q position %d passes offset %d, which was never delivered", r.Node, sv.Scope, gs.Name, gs.CommittedOffset, o)
						}
					}
				}
			}
		}
	}
	return nil
}
