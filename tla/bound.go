package tla

import (
	"fmt"
	"slices"
)

// The bound a visited state is judged by, for every group size. A group
// of three members is judged by the exact bound: the projections of every
// state of MCBrokerShape (ReachableBound, 839 states, explored by the
// mirror and counted by TLC). A group of any other size is judged by the
// invariants below: facts about every state of the model with that many
// brokers, each argued from the model's rules, so the states they allow
// hold every state such a model reaches (a model gap found by them is a
// state no model of that size reaches). They are not exact: at three
// members they allow 843 states, the 839 of the exact bound and 4 that
// only counting writes, not naming them, lets through
// (TestBoundInvariantsHoldTheExplored), so a coverage fraction against
// them is a lower bound. Exploring five brokers exactly (about 10^10
// states) is out of reach; TestBoundInvariantsHoldOtherSizes holds the
// invariants to every state the mirror reaches with one, two and four
// brokers.

// Shape bounds, by name as a report gives them.
const (
	BoundExplored   = "explored"
	BoundInvariants = "invariants"
)

// boundInvariant is one fact every reachable projection of a group keeps:
// broken names the first views (sorted) that break it, or is "".
type boundInvariant struct {
	name   string
	broken func(vs []brokerView, reconfigured bool) string
}

// boundInvariants are the facts, with their argument.
var boundInvariants = []boundInvariant{
	// A term has at most one leader (a leader needs a quorum's votes and a
	// broker votes once per term), so the newest term any broker leads
	// has one.
	{"OneLeader", func(vs []brokerView, _ bool) string {
		n := 0
		for _, v := range vs {
			if v.leader {
				n++
			}
		}
		if n > 1 {
			return fmt.Sprintf("%d brokers lead the newest term", n)
		}
		return ""
	}},
	// What a commit mark covers was acknowledged by a quorum of the
	// voters, each of which holds it from then on (an acknowledged entry
	// is persisted, so a crash keeps it, and a committed entry is never
	// in conflict with a later leader's), and holding an entry means
	// holding every entry before it (Log Matching): a majority of the
	// group holds at least as many of the scope's writes as any broker's
	// mark covers. After a membership change the quorum that committed a
	// write may be the old configuration's, whose majority the new one
	// need not hold: this fact is not claimed for a group whose membership
	// changed.
	{"CommitOnQuorum", func(vs []brokerView, reconfigured bool) string {
		if reconfigured {
			return ""
		}
		marked := uint8(0)
		for _, v := range vs {
			marked = max(marked, v.committed)
		}
		holders := 0
		for _, v := range vs {
			if v.stored >= marked {
				holders++
			}
		}
		if q := len(vs)/2 + 1; holders < q {
			return fmt.Sprintf("a mark covers %d writes, %d of %d brokers hold them, a quorum is %d", marked, holders, len(vs), q)
		}
		return ""
	}},
	// Brokers apply one committed prefix (committed prefixes agree), and
	// an entry's outcome is recomputed from the record and the state the
	// prefix before it gives: a broker that applied more of the scope's
	// writes wrote every record the other wrote and at most one more per
	// write it applied beyond.
	{"AppliedAgree", func(vs []brokerView, _ bool) string {
		for _, x := range vs {
			for _, y := range vs {
				if x.applied <= y.applied && (y.written < x.written || y.written > x.written+(y.applied-x.applied)) {
					return fmt.Sprintf("one broker applied %d writes and wrote %d, another applied %d and wrote %d", x.applied, x.written, y.applied, y.written)
				}
			}
		}
		return ""
	}},
	// The model's writes are a commit, then a commit_if (MaxCommits 2);
	// a commit is never refused, so a refused first write is the
	// commit_if, proposed by a leader whose log did not hold the commit
	// before it. Every log holding that entry holds the same prefix (Log
	// Matching), and the commit, proposed earlier in a term no newer, is
	// never appended after it: no log holds both writes.
	{"RefusedFirstIsLast", func(vs []brokerView, _ bool) string {
		refused := false
		for _, v := range vs {
			refused = refused || (v.applied >= 1 && v.written == 0)
		}
		if !refused {
			return ""
		}
		for _, v := range vs {
			if v.stored > 1 {
				return "a broker refused its first write, another holds two"
			}
		}
		return ""
	}},
}

// BrokenInvariant returns the first bound invariant p breaks and how, or
// "" and "" for a state the invariants allow.
func BrokenInvariant(p ProjectedState) (name, how string) {
	vs := p.views()
	for _, inv := range boundInvariants {
		if how := inv.broken(vs, p.Reconfigured()); how != "" {
			return inv.name, how
		}
	}
	return "", ""
}

// InBound reports whether p is a state a broker can reach by the model's
// account: in the explored bound for three members, allowed by the
// invariants for any other size.
func InBound(p ProjectedState) bool {
	if p.Members() == projectedBrokers {
		_, found := slices.BinarySearch(reachableBoundTable[:], p)
		return found
	}
	name, _ := BrokenInvariant(p)
	return name == ""
}

// Shape is a group size and whether its membership changed: the states of
// one shape are judged by one bound.
type Shape struct {
	Members      int  `json:"members"`
	Reconfigured bool `json:"reconfigured,omitempty"`
}

// ShapeOf is p's shape.
func ShapeOf(p ProjectedState) Shape {
	return Shape{Members: p.Members(), Reconfigured: p.Reconfigured()}
}

// BoundName is how the shape's states are judged: BoundExplored or
// BoundInvariants.
func (s Shape) BoundName() string {
	if s.Members == projectedBrokers {
		return BoundExplored
	}
	return BoundInvariants
}

// BoundSize counts the states of the shape's bound; 0 for a shape outside
// 1..MembersMax members (or a changed group of three, judged as three).
func (s Shape) BoundSize() int {
	switch {
	case s.Members == projectedBrokers && !s.Reconfigured:
		return len(reachableBoundTable)
	case s.Members < 1 || s.Members > MembersMax || s.Members == projectedBrokers:
		return 0
	}
	i := s.Members
	if s.Reconfigured {
		i += MembersMax
	}
	return boundSizes[i]
}

// boundStates enumerates the shape's states the invariants allow, in
// ascending order of their codes (sorted views of at most one leader,
// each kept once), calling visit for each.
func (s Shape) boundStates(visit func(ProjectedState)) {
	vs := make([]brokerView, s.Members)
	var rec func(i int, from uint64, leaders int)
	rec = func(i int, from uint64, leaders int) {
		if i == len(vs) {
			p := project(vs, s.Reconfigured)
			if name, _ := BrokenInvariant(p); name == "" {
				visit(p)
			}
			return
		}
		for c := from; c < viewCodes; c++ {
			v := compactView(c)
			if v.leader && leaders > 0 {
				continue
			}
			vs[i] = v
			l := leaders
			if v.leader {
				l++
			}
			rec(i+1, c, l)
		}
	}
	rec(0, 0, 0)
}
