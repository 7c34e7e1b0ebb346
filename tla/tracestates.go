package tla

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/felixsim/felixsim/modeltrace"
)

// Model-state coverage: which of the model's states a run visited, judged
// on a projection both the mirror's states and a trace's states map onto.
// A projected state is one scope's view of its first ProjectedCommits
// writes on each of three brokers (the main config's bounds: 3 brokers, 2
// commits): how many of them b's log holds, how many sit below b's commit
// mark, how many b applied, how many b wrote as records (a refused
// conditional write is applied but writes none), and whether b leads the
// newest term. Brokers are interchangeable in the model, so the three
// per-broker views are sorted. The mirror's reachable set is the
// projection of every state of the main config (ReachableProjected).

// ProjectedCommits is how many of a scope's writes the projection sees:
// the main config's MaxCommits.
const ProjectedCommits = 2

// projectedBrokers is how many brokers the projection holds: the main
// config's.
const projectedBrokers = 3

// brokerView is one broker's view of a scope's first writes.
// Invariant: written <= applied <= committed <= stored <= ProjectedCommits.
type brokerView struct {
	stored, committed, applied, written uint8
	leader                              bool
}

// code packs the view into 0..161.
func (v brokerView) code() uint32 {
	c := ((uint32(v.stored)*3+uint32(v.committed))*3+uint32(v.applied))*3 + uint32(v.written)
	c *= 2
	if v.leader {
		c++
	}
	return c
}

func viewOf(code uint32) brokerView {
	v := brokerView{leader: code%2 == 1}
	code /= 2
	v.written, code = uint8(code%3), code/3
	v.applied, code = uint8(code%3), code/3
	v.committed, v.stored = uint8(code%3), uint8(code/3)
	return v
}

// ProjectedState is a projected state: the three brokers' views, sorted.
type ProjectedState uint32

// project packs three views, sorting them.
func project(vs [projectedBrokers]brokerView) ProjectedState {
	var c [projectedBrokers]uint32
	for i, v := range vs {
		if v.written > v.applied || v.applied > v.committed || v.committed > v.stored || v.stored > ProjectedCommits {
			panic(fmt.Sprintf("tla: projected view %+v breaks written <= applied <= committed <= stored <= %d", v, ProjectedCommits))
		}
		c[i] = v.code()
	}
	// Insertion sort: sort.Slice's closure and swapper cost more than
	// the rest of a step's projection.
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j-1] > c[j]; j-- {
			c[j-1], c[j] = c[j], c[j-1]
		}
	}
	return ProjectedState((c[0]*162+c[1])*162 + c[2])
}

// String renders the state as three views "s/c/a/w" (stored, committed,
// applied, written), a leader marked L.
func (p ProjectedState) String() string {
	x := uint32(p)
	codes := [projectedBrokers]uint32{x / (162 * 162), x / 162 % 162, x % 162}
	parts := make([]string, projectedBrokers)
	for i, c := range codes {
		v := viewOf(c)
		parts[i] = fmt.Sprintf("%d/%d/%d/%d", v.stored, v.committed, v.applied, v.written)
		if v.leader {
			parts[i] += "L"
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// mirrorProjection projects a state of an Atomic config with MaxCommits
// ProjectedCommits: every log entry is one commit of the one scope; the
// leader marked is the leader of the newest term any broker leads.
func mirrorProjection(s *State) ProjectedState {
	var vs [projectedBrokers]brokerView
	leadTerm := uint8(0)
	for b := range vs {
		if br := &s.b[b]; br.role == roleLeader {
			leadTerm = max(leadTerm, br.term)
		}
	}
	for b := range vs {
		br := &s.b[b]
		vs[b] = brokerView{written: br.shardLen, leader: br.role == roleLeader && br.term == leadTerm}
		for i := uint8(0); i < br.logLen; i++ {
			if p := br.log[i]; isEmptyEntry(p) || p.kind == kindConf {
				continue // the projection counts writes
			}
			vs[b].stored++
			if i < br.commit {
				vs[b].committed++
			}
			if i < br.applied {
				vs[b].applied++
			}
		}
	}
	return project(vs)
}

// ReachableProjected returns the projections of every reachable state of
// the main config (MCFelixAtomicCommit: Atomic, 3 brokers, 2 commits,
// MaxTerm 2), sorted.
func ReachableProjected() ([]ProjectedState, error) {
	cfg := Configs()[0]
	cfg.Invariants = false
	out, _, err := reachableProjections(cfg)
	return out, err
}

// ReachableProjectedTable is the bound (ReachableBound: the projections of
// every state of MCBrokerShape, what a broker's trace can show by the
// model's own account) read from a generated table (reachable_table.go,
// checked against the mirror by TestReachableBoundLong), so that a run
// does not explore the config (3.3 million states) to report its
// model-state coverage.
func ReachableProjectedTable() []ProjectedState { return slices.Clone(reachableBoundTable[:]) }

func sortedStates(set map[ProjectedState]bool) []ProjectedState {
	out := make([]ProjectedState, 0, len(set))
	for p := range set { //det:ok sorted below
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// scopeCursor finds, in one broker's log, the raft indexes of a scope's
// first ProjectedCommits writes; scanned is how much of the log it read.
type scopeCursor struct {
	pos     []uint64
	scanned uint64
}

// stateTracker projects each scope of each group after every step.
type stateTracker struct {
	// scopes[group] is the group's scopes' cursors and views.
	scopes  map[uint64]*groupScopes
	visited map[ProjectedState]bool
	// unprojected counts the steps of groups whose membership the
	// projection does not cover (not three brokers).
	unprojected int
}

// groupScopes is one group's scopes, in the order they appeared (a
// slice, so that a step does not iterate a map), and by the group's
// scope number (traceGroup.scopeIDs; nil for a scope not tracked);
// members are the brokers projected last (the group's members, ascending).
type groupScopes struct {
	tracks  []*scopeTrack
	byScope []*scopeTrack
	members [projectedBrokers]uint64
}

// scopeTrack is one scope's cursor per broker (indexed by broker id) and
// the views last computed from them, one per projected member.
type scopeTrack struct {
	scope   int // the group's number of the scope
	cursors []scopeCursor
	views   [projectedBrokers]brokerView
	// noted is set once the projection of views is in the visited set:
	// views unchanged by a step then add nothing to it.
	noted bool
}

func newStateTracker() *stateTracker {
	return &stateTracker{scopes: map[uint64]*groupScopes{}, visited: map[ProjectedState]bool{}}
}

// note projects the scopes of g after step s took effect. A step changes
// only its own broker's variables (log, commit, applied, leadership),
// except that a Promote may make the newest leader term newer, which
// every broker's leader flag reads: so only the step's broker's view is
// computed again, every broker's after a Promote or when a scope first
// appears. (A log entry's write is known before the entry reaches any
// log, so scanning a broker's log at its own steps only finds what
// scanning it at every step found.)
func (t *stateTracker) note(g *traceGroup, s *modeltrace.Step) {
	gs := t.scopes[g.id]
	if gs == nil {
		gs = &groupScopes{}
		t.scopes[g.id] = gs
	}
	members, ok := g.projectedMembers()
	if !ok {
		t.unprojected++
		return
	}
	moved := members != gs.members // a replaced broker took a member's place
	gs.members = members
	var fresh *scopeTrack
	switch s.Kind {
	case modeltrace.Request:
		if w := s.Proposed; w != nil && w.Kind.Writes() && gs.track(g.writes[s.Digest].scope) == nil {
			fresh = &scopeTrack{scope: g.writes[s.Digest].scope}
			gs.byScope = covering(gs.byScope, fresh.scope)
			gs.byScope[fresh.scope] = fresh
			gs.tracks = append(gs.tracks, fresh)
			t.visited[project([projectedBrokers]brokerView{})] = true
		}
	case modeltrace.Persist:
		for _, st := range gs.tracks {
			c := st.cursor(s.Broker)
			c.scanned = min(c.scanned, s.Index-1)
			for len(c.pos) > 0 && c.pos[len(c.pos)-1] >= s.Index {
				c.pos = c.pos[:len(c.pos)-1]
			}
		}
	case modeltrace.Snapshot:
		for _, st := range gs.tracks {
			*st.cursor(s.Broker) = scopeCursor{}
		}
	case modeltrace.Answer:
		return
	}
	leadTerm := g.leadTerm
	for _, st := range gs.tracks {
		was := st.views
		for j, b := range members {
			if s.Kind == modeltrace.Promote || st == fresh || moved || b == s.Broker {
				st.views[j] = t.view(g, st.scope, st.cursor(b), b, leadTerm)
			}
		}
		if st.noted && st.views == was {
			continue // the same projection, already visited
		}
		t.visited[project(st.views)] = true
		st.noted = true
	}
}

// cursor returns broker b's cursor of the track, adding it if new.
func (st *scopeTrack) cursor(b uint64) *scopeCursor {
	st.cursors = covering(st.cursors, int(b))
	return &st.cursors[b]
}

// projectedMembers is the group's membership the projection covers: the
// configuration its committed membership changes give (the bootstrap
// voters before any), voters and learners, when it has the projection's
// three brokers (a replaced broker's new identity takes the place of the
// one it replaced); ok is false for any other count, which the
// projection does not cover.
func (g *traceGroup) projectedMembers() (members [projectedBrokers]uint64, ok bool) {
	m := bootstrapMembership(g.peers)
	if n := len(g.confPoints); n > 0 {
		m = g.confPoints[n-1].conf
	}
	if len(m.voters)+len(m.learners) != projectedBrokers {
		return members, false
	}
	all := append(slices.Clone(m.voters), m.learners...)
	slices.Sort(all)
	copy(members[:], all)
	return members, true
}

// track returns scope id's track, nil if none.
func (gs *groupScopes) track(id int) *scopeTrack {
	if id < len(gs.byScope) {
		return gs.byScope[id]
	}
	return nil
}

// view is broker b's view of scope id's first writes.
func (t *stateTracker) view(g *traceGroup, id int, c *scopeCursor, b, leadTerm uint64) brokerView {
	if b >= uint64(len(g.brokers)) || g.brokers[b] == nil {
		return brokerView{}
	}
	br := g.brokers[b]
	for c.scanned < uint64(len(br.log)) && len(c.pos) < ProjectedCommits {
		c.scanned++
		if w, ok := g.writeAt(br.log[c.scanned-1], c.scanned); ok && w.scope == id && w.kind.Writes() {
			c.pos = append(c.pos, c.scanned)
		}
	}
	v := brokerView{stored: uint8(len(c.pos)), leader: br.leads != 0 && br.leads == leadTerm}
	idx := g.writtenIn(id)
	idx = idx[:min(uint64(len(idx)), br.nextIn(id))]
	for _, p := range c.pos {
		if p <= br.commit {
			v.committed++
		}
		if p <= br.applied {
			v.applied++
			if holdsIndex(idx, p) {
				v.written++
			}
		}
	}
	return v
}

// holdsIndex reports whether idx, ascending, holds raft index p. The
// entries a view asks about are a scope's first writes, nearly always at
// the first offsets, so the first two are looked at before a binary
// search; on an ascending slice either finds what the other does.
func holdsIndex(idx []uint64, p uint64) bool {
	for j := 0; j < len(idx) && j < ProjectedCommits; j++ {
		if idx[j] >= p {
			return idx[j] == p
		}
	}
	_, found := slices.BinarySearch(idx, p)
	return found
}

// StateCoverage compares the projected states a trace (or many) visited
// with the mirror's reachable ones.
type StateCoverage struct {
	// Reachable counts the mirror's projected states; Visited those the
	// trace visited among them, and Fraction is Visited / Reachable.
	Reachable int     `json:"reachable"`
	Visited   int     `json:"visited"`
	Fraction  float64 `json:"fraction"`
	// Outside lists the model gaps: visited states the bound does not
	// hold (a broker step the model leaves out, or the model's bounds).
	Outside []string `json:"outside,omitempty"`
	// Missed lists reachable states never visited (only when asked).
	Missed []string `json:"missed,omitempty"`
	// States are the visited states' codes, sorted (to merge runs).
	States []ProjectedState `json:"states,omitempty"`
}

// CompareStates measures visited against reachable (both sorted);
// withMissed lists the reachable states never visited.
func CompareStates(visited, reachable []ProjectedState, withMissed bool) StateCoverage {
	in := map[ProjectedState]bool{}
	for _, p := range visited {
		in[p] = true
	}
	c := StateCoverage{Reachable: len(reachable), States: visited}
	for _, p := range reachable {
		if in[p] {
			c.Visited++
			delete(in, p)
		} else if withMissed {
			c.Missed = append(c.Missed, p.String())
		}
	}
	for _, p := range sortedStates(in) {
		c.Outside = append(c.Outside, p.String())
	}
	if c.Reachable > 0 {
		c.Fraction = float64(c.Visited) / float64(c.Reachable)
	}
	return c
}
