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
// writes on each member of its group (the main config's MaxCommits): how
// many of them b's log holds, how many sit below b's commit mark, how many
// b applied, how many b wrote as records (a refused conditional write is
// applied but writes none), and whether b leads the newest term. Brokers
// are interchangeable in the model, so the members' views are sorted; a
// state also says how many members the group had and, for a group of
// other than three, whether its membership ever changed (the bound it is
// judged by differs: bound.go).

// ProjectedCommits is how many of a scope's writes the projection sees:
// the main config's MaxCommits.
const ProjectedCommits = 2

// projectedBrokers is the group size whose bound is the mirror's exact
// exploration (the main config's three brokers).
const projectedBrokers = 3

// MembersMax is the most members a projected group may have: a cluster's
// seven brokers and a learner being added; a larger group's steps are
// counted as unprojected.
const MembersMax = 8

// brokerView is one broker's view of a scope's first writes.
// Invariant: written <= applied <= committed <= stored <= ProjectedCommits.
type brokerView struct {
	stored, committed, applied, written uint8
	leader                              bool
}

// code packs the view into 0..161 (a three-member state's digit).
func (v brokerView) code() uint64 {
	c := ((uint64(v.stored)*3+uint64(v.committed))*3+uint64(v.applied))*3 + uint64(v.written)
	c *= 2
	if v.leader {
		c++
	}
	return c
}

func viewOf(code uint64) brokerView {
	v := brokerView{leader: code%2 == 1}
	code /= 2
	v.written, code = uint8(code%3), code/3
	v.applied, code = uint8(code%3), code/3
	v.committed, v.stored = uint8(code%3), uint8(code/3)
	return v
}

// viewChains is how many (stored, committed, applied, written) tuples
// keep the view's order; viewCodes counts them with the leader flag.
const (
	viewChains = 15
	viewCodes  = 2 * viewChains
)

// chainRank is each ordered tuple's rank, lexicographic (so that compact
// codes sort as the three-member codes do), and chainOf its inverse.
var chainRank, chainOf = func() (r [ProjectedCommits + 1][ProjectedCommits + 1][ProjectedCommits + 1][ProjectedCommits + 1]uint8, of [viewChains][4]uint8) {
	n := uint8(0)
	for s := uint8(0); s <= ProjectedCommits; s++ {
		for c := uint8(0); c <= s; c++ {
			for a := uint8(0); a <= c; a++ {
				for w := uint8(0); w <= a; w++ {
					r[s][c][a][w], of[n] = n, [4]uint8{s, c, a, w}
					n++
				}
			}
		}
	}
	if n != viewChains {
		panic(fmt.Sprintf("tla: %d view chains, want %d", n, viewChains))
	}
	return r, of
}()

// compact packs the view into 0..viewCodes-1 (another size's digit).
func (v brokerView) compact() uint64 {
	c := uint64(chainRank[v.stored][v.committed][v.applied][v.written]) * 2
	if v.leader {
		c++
	}
	return c
}

func compactView(code uint64) brokerView {
	t := chainOf[code/2]
	return brokerView{stored: t[0], committed: t[1], applied: t[2], written: t[3], leader: code%2 == 1}
}

// ProjectedState is a projected state: the group's size, whether its
// membership changed (only for a size other than three), and its
// members' views, sorted. A three-member state is three base-162 digits
// (below threeSpan; these codes are the sweep report /3's); any other is
// its head (the size, plus reconfiguredFlag for a changed membership)
// times viewsSpan plus its compact base-30 digits. Codes stay below 2^53,
// so a JSON reader that holds numbers as doubles reads them exactly.
type ProjectedState uint64

// threeSpan is 162^3: every three-member code is below it.
const threeSpan = 162 * 162 * 162

// viewsSpan is viewCodes^MembersMax: another size's digits sit below it,
// its head above.
const viewsSpan = 30 * 30 * 30 * 30 * 30 * 30 * 30 * 30

// reconfiguredFlag marks a group whose membership changed, in the head.
const reconfiguredFlag = 16

// project packs a group's views, sorting them; reconfigured says its
// membership changed (ignored for a group of three, which the explored
// bound judges either way: a replaced broker's new identity takes the old
// one's place).
func project(vs []brokerView, reconfigured bool) ProjectedState {
	n := len(vs)
	if n < 1 || n > MembersMax {
		panic(fmt.Sprintf("tla: projected group of %d members, want 1..%d", n, MembersMax))
	}
	three := n == projectedBrokers
	var c [MembersMax]uint64
	for i, v := range vs {
		if !v.ordered() {
			panic(fmt.Sprintf("tla: projected view %+v breaks written <= applied <= committed <= stored <= %d", v, ProjectedCommits))
		}
		if three {
			c[i] = v.code()
		} else {
			c[i] = v.compact()
		}
	}
	// Insertion sort: sort.Slice's closure and swapper cost more than
	// the rest of a step's projection.
	for i := 1; i < n; i++ {
		for j := i; j > 0 && c[j-1] > c[j]; j-- {
			c[j-1], c[j] = c[j], c[j-1]
		}
	}
	if three {
		return ProjectedState((c[0]*162+c[1])*162 + c[2])
	}
	head := uint64(n)
	if reconfigured {
		head += reconfiguredFlag
	}
	x := uint64(0)
	for _, d := range c[:n] {
		x = x*viewCodes + d
	}
	return ProjectedState(head*viewsSpan + x)
}

// ordered reports whether the view keeps written <= applied <= committed
// <= stored <= ProjectedCommits.
func (v brokerView) ordered() bool {
	return v.written <= v.applied && v.applied <= v.committed && v.committed <= v.stored && v.stored <= ProjectedCommits
}

// Members is the group size the state was projected from.
func (p ProjectedState) Members() int {
	if p < threeSpan {
		return projectedBrokers
	}
	return int(uint64(p) / viewsSpan % reconfiguredFlag)
}

// Reconfigured says the state's group (of other than three members) had
// changed its membership.
func (p ProjectedState) Reconfigured() bool {
	return p >= threeSpan && uint64(p)/viewsSpan >= reconfiguredFlag
}

// views decodes the state's views, ascending.
func (p ProjectedState) views() []brokerView {
	if p < threeSpan {
		x := uint64(p)
		return []brokerView{viewOf(x / (162 * 162)), viewOf(x / 162 % 162), viewOf(x % 162)}
	}
	n := p.Members()
	out := make([]brokerView, n)
	x := uint64(p) % viewsSpan
	for i := n - 1; i >= 0; i-- {
		out[i] = compactView(x % viewCodes)
		x /= viewCodes
	}
	return out
}

// Valid reports whether p is a code project gives: a reader's check of a
// code read from a file.
func (p ProjectedState) Valid() bool {
	if p >= threeSpan {
		head := uint64(p) / viewsSpan
		n := head % reconfiguredFlag
		if n < 1 || n > MembersMax || n == projectedBrokers || head >= 2*reconfiguredFlag {
			return false
		}
		span := uint64(1)
		for range n {
			span *= viewCodes
		}
		if uint64(p)%viewsSpan >= span {
			return false
		}
	}
	vs := p.views()
	for _, v := range vs {
		if !v.ordered() {
			return false
		}
	}
	return project(vs, p.Reconfigured()) == p
}

// String renders the state as its views "s/c/a/w" (stored, committed,
// applied, written), a leader marked L; a changed membership is marked
// by a leading "r".
func (p ProjectedState) String() string {
	vs := p.views()
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprintf("%d/%d/%d/%d", v.stored, v.committed, v.applied, v.written)
		if v.leader {
			parts[i] += "L"
		}
	}
	s := "[" + strings.Join(parts, " ") + "]"
	if p.Reconfigured() {
		s = "r" + s
	}
	return s
}

// mirrorProjection projects a state of an Atomic config with MaxCommits
// ProjectedCommits and no spares: every log entry is one commit of the one
// scope; the leader marked is the leader of the newest term any broker
// leads.
func (m *model) mirrorProjection(s *State) ProjectedState {
	n := m.cfg.Brokers
	var vs [MembersMax]brokerView
	leadTerm := uint8(0)
	for b := range n {
		if br := &s.b[b]; br.role == roleLeader {
			leadTerm = max(leadTerm, br.term)
		}
	}
	for b := range n {
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
	return project(vs[:n], false)
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
	// projection does not cover (more than MembersMax members).
	unprojected int
}

// groupScopes is one group's scopes, in the order they appeared (a
// slice, so that a step does not iterate a map), and by the group's
// scope number (traceGroup.scopeIDs; nil for a scope not tracked);
// members are the brokers projected last (the group's members, ascending)
// and reconfigured whether the group's membership had changed.
type groupScopes struct {
	tracks       []*scopeTrack
	byScope      []*scopeTrack
	members      []uint64
	reconfigured bool
}

// scopeTrack is one scope's cursor per broker (indexed by broker id) and
// the views last computed from them, one per projected member.
type scopeTrack struct {
	scope   int // the group's number of the scope
	cursors []scopeCursor
	views   []brokerView
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
	members, reconfigured, ok := g.projectedMembers()
	if !ok {
		t.unprojected++
		return
	}
	// A replaced broker took a member's place, or the group grew or shrank.
	moved := !slices.Equal(members, gs.members) || reconfigured != gs.reconfigured
	if moved {
		gs.members, gs.reconfigured = slices.Clone(members), reconfigured
	}
	var fresh *scopeTrack
	switch s.Kind {
	case modeltrace.Request:
		if w := s.Proposed; w != nil && w.Kind.Writes() && gs.track(g.writes[s.Digest].scope) == nil {
			fresh = &scopeTrack{scope: g.writes[s.Digest].scope}
			gs.byScope = covering(gs.byScope, fresh.scope)
			gs.byScope[fresh.scope] = fresh
			gs.tracks = append(gs.tracks, fresh)
			t.visited[project(make([]brokerView, len(members)), reconfigured)] = true
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
		changed := len(st.views) != len(members)
		if changed {
			st.views = make([]brokerView, len(members))
		}
		for j, b := range members {
			if s.Kind == modeltrace.Promote || st == fresh || moved || changed || b == s.Broker {
				if v := t.view(g, st.scope, st.cursor(b), b, leadTerm); v != st.views[j] {
					st.views[j], changed = v, true
				}
			}
		}
		if st.noted && !changed && !moved {
			continue // the same projection, already visited
		}
		t.visited[project(st.views, gs.reconfigured)] = true
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
// voters before any), voters and learners, ascending (a replaced broker's
// new identity takes the place of the one it replaced), and whether any
// change was committed; ok is false for a group of more than MembersMax
// members, which the projection does not cover. The slice is g's own
// until the next committed change: read it, do not keep it.
func (g *traceGroup) projectedMembers() (members []uint64, reconfigured, ok bool) {
	n := len(g.confPoints)
	if n == 0 {
		if g.peers < 1 || g.peers > MembersMax {
			return nil, false, false
		}
		if len(g.projected) != g.peers {
			g.projected = bootstrapMembership(g.peers).voters
		}
		return g.projected, false, true
	}
	m := g.confPoints[n-1].conf
	if k := len(m.voters) + len(m.learners); k < 1 || k > MembersMax {
		return nil, true, false
	}
	if g.projectedAt != n {
		g.projected = append(slices.Clone(m.voters), m.learners...)
		slices.Sort(g.projected)
		g.projectedAt = n
	}
	return g.projected, true, true
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
// with the bound of each group shape they were visited in (bound.go).
type StateCoverage struct {
	// Reachable counts the bound's states over the shapes visited;
	// Visited those the trace visited among them, and Fraction is Visited
	// / Reachable.
	Reachable int     `json:"reachable"`
	Visited   int     `json:"visited"`
	Fraction  float64 `json:"fraction"`
	// Shapes are the same counts for each shape visited, by size.
	Shapes []ShapeCoverage `json:"shapes,omitempty"`
	// Outside lists the model gaps: visited states the bound does not
	// hold (a broker step the model leaves out, or the model's bounds),
	// each with the invariant it breaks when its shape's bound is the
	// invariants.
	Outside []string `json:"outside,omitempty"`
	// Missed lists the explored bound's states never visited (only when
	// asked, and only for three-member groups: another size's bound is
	// counted, not listed).
	Missed []string `json:"missed,omitempty"`
	// States are the visited states' codes, sorted (to merge runs).
	States []ProjectedState `json:"states,omitempty"`
}

// ShapeCoverage is one shape's coverage: its bound's name and size, how
// many of its states were visited, and how many visited states lay
// outside it (model gaps).
type ShapeCoverage struct {
	Shape
	Bound     string `json:"bound"`
	Reachable int    `json:"reachable"`
	Visited   int    `json:"visited"`
	Gaps      int    `json:"gaps"`
}

// CompareStates measures visited (sorted) against the bound of each shape
// it holds; withMissed lists the explored bound's states never visited
// when three-member groups were visited.
func CompareStates(visited []ProjectedState, withMissed bool) StateCoverage {
	c := StateCoverage{States: visited}
	byShape := map[Shape]*ShapeCoverage{}
	var order []Shape
	for _, p := range visited {
		sh := ShapeOf(p)
		sc := byShape[sh]
		if sc == nil {
			sc = &ShapeCoverage{Shape: sh, Bound: sh.BoundName(), Reachable: sh.BoundSize()}
			byShape[sh] = sc
			order = append(order, sh)
		}
		if InBound(p) {
			sc.Visited++
			continue
		}
		sc.Gaps++
		if name, how := BrokenInvariant(p); sh.BoundName() == BoundInvariants && name != "" {
			c.Outside = append(c.Outside, fmt.Sprintf("%s (%s: %s)", p, name, how))
		} else {
			c.Outside = append(c.Outside, p.String())
		}
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].Members != order[j].Members {
			return order[i].Members < order[j].Members
		}
		return !order[i].Reconfigured && order[j].Reconfigured
	})
	for _, sh := range order {
		sc := byShape[sh]
		c.Shapes = append(c.Shapes, *sc)
		c.Reachable += sc.Reachable
		c.Visited += sc.Visited
		if withMissed && sh.Members == projectedBrokers {
			for _, p := range reachableBoundTable {
				if _, found := slices.BinarySearch(visited, p); !found {
					c.Missed = append(c.Missed, p.String())
				}
			}
		}
	}
	if c.Reachable > 0 {
		c.Fraction = float64(c.Visited) / float64(c.Reachable)
	}
	return c
}
