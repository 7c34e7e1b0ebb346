package tla

import (
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/modeltrace"
)

// What decides an apply beyond the offsets, in trace mode: each scope's
// retained window (its first retained offset), whether the group has
// finalized atomic_commit, and the stream's incarnation. The broker
// applies all three at log positions (retention by count at a write,
// retain steps, feature and incarnation markers), so each is a function
// of a broker's applied index, the same on every replica; a restart or a
// snapshot rebuilds them at its index from what the group's applies
// fixed: the drop points (where a retain step or an incarnation marker
// set a scope's first retained offset), the first feature marker, the
// incarnation markers. Retention by count is the rest: a scope retains
// at most RetainedMax records, so its first retained offset is the
// latest drop point's, or its next offset less RetainedMax when that is
// past it.

// bootIncarnation is a stream's incarnation at boot, as an order
// (generation 1, live: generation * 2 + deleted).
const bootIncarnation = 2

// dropPoint is where an apply set a scope's first retained offset.
type dropPoint struct{ index, first uint64 }

// incarnationPoint is an incarnation marker's index and order.
type incarnationPoint struct{ index, order uint64 }

// firstIn returns scope id's first retained offset on br.
func (br *traceBroker) firstIn(id int) uint64 {
	if id >= 0 && id < len(br.first) {
		return br.first[id]
	}
	return 0
}

// setFirst sets scope id's first retained offset on br.
func (br *traceBroker) setFirst(id int, first uint64) {
	br.first = covering(br.first, id)
	br.first[id] = first
}

// deleted reports whether br's stream incarnation is a deleted one.
func (br *traceBroker) deleted() bool { return br.incarnation%2 == 1 }

func incarnationText(order uint64) string {
	if order%2 == 1 {
		return fmt.Sprintf("generation %d, deleted", order/2)
	}
	return fmt.Sprintf("generation %d, live", order/2)
}

// noteDrop records that the first apply of index i set scope id's first
// retained offset to first (a later apply of i must agree: sameOutcome).
func (g *traceGroup) noteDrop(id int, i, first uint64) {
	g.drops = covering(g.drops, id)
	if ps := g.drops[id]; len(ps) > 0 && ps[len(ps)-1].index >= i {
		return
	}
	g.drops[id] = append(g.drops[id], dropPoint{index: i, first: first})
}

// applyMarker takes a feature's or an incarnation's marker applied at i.
func (g *traceGroup) applyMarker(br *traceBroker, i uint64, c *command) {
	if c.kind == modeltrace.KindFeature {
		if c.finalizes {
			br.finalized = true
			if g.featureAt == 0 || i < g.featureAt {
				g.featureAt = i
			}
		}
		return
	}
	order := c.order
	if order <= br.incarnation {
		return // a re-proposal, or an older one: nothing changes
	}
	br.incarnation = order
	if n := len(g.incarnations); n == 0 || g.incarnations[n-1].index < i {
		g.incarnations = append(g.incarnations, incarnationPoint{index: i, order: order})
	}
	for id := 0; id < len(g.scopeIDs); id++ {
		br.setFirst(id, br.nextIn(id))
		g.noteDrop(id, i, br.nextIn(id))
	}
}

func boolOrder(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// firstAt is scope id's first retained offset at an applied index where
// its next offset is next: the last drop point's at or below the index,
// or next less RetainedMax when that is past it.
func (g *traceGroup) firstAt(id int, applied, next uint64) uint64 {
	first := uint64(0)
	if id < len(g.drops) {
		ps := g.drops[id]
		if j := sort.Search(len(ps), func(j int) bool { return ps[j].index > applied }); j > 0 {
			first = ps[j-1].first
		}
	}
	if g.retainedMax > 0 && next > g.retainedMax {
		first = max(first, next-g.retainedMax)
	}
	return first
}

// finalizedAt reports whether a broker that applied up to index has
// finalized atomic_commit: the group booted with it, or a marker at or
// below the index finalized it.
func (g *traceGroup) finalizedAt(applied uint64) bool {
	return g.bootFinalized || (g.featureAt != 0 && g.featureAt <= applied)
}

// incarnationAt is the stream incarnation a broker that applied up to
// index holds.
func (g *traceGroup) incarnationAt(applied uint64) uint64 {
	order := uint64(bootIncarnation)
	for _, p := range g.incarnations {
		if p.index <= applied {
			order = max(order, p.order)
		}
	}
	return order
}

// groupConstants checks a Restart's group constants: the first Restart of
// the group sets them (RetainedMax, and whether it booted finalized);
// every later one must report the same RetainedMax.
func (g *traceGroup) groupConstants(s *modeltrace.Step) error {
	if !g.constantsSet {
		g.constantsSet, g.retainedMax, g.bootFinalized = true, s.RetainedMax, s.Finalized
		return nil
	}
	if s.RetainedMax != g.retainedMax {
		return fmt.Errorf("the group retains at most %d records a scope, but broker %d restarted with %d", g.retainedMax, s.Broker, s.RetainedMax)
	}
	return nil
}
