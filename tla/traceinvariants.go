package tla

import (
	"fmt"
	"slices"
	"sort"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/properties"
)

// The model's invariants, evaluated on the trace state after every step
// (TraceFelixAtomicCommit.tla lists them as TLC's INVARIANTs, in the
// model's order): the read rules NoPartialCommit, VersionIsOffset and
// StateMatchesLog on what a read step observed (a reader's observation is
// part of the state only in the step that makes it), and
// CommittedNeverLost on every write a broker acknowledged. A step leaves
// an invariant as it was unless it changes a variable the invariant
// reads, so only those are evaluated again: the reads' rules after a
// read; CommittedNeverLost for a newly acknowledged write, after a
// promotion (leaders), and for the acknowledged writes at or past the
// first index a step changed some broker's log at (holders, leaders).

// invariantBreak is a state after a step that breaks one of the model's
// invariants.
type invariantBreak struct {
	name properties.InvariantName
	err  error
}

func (b *invariantBreak) Error() string { return b.err.Error() }

func broke(name properties.InvariantName, format string, args ...any) *invariantBreak {
	return &invariantBreak{name: name, err: fmt.Errorf(format, args...)}
}

// stepEffects is what a step changed that the invariants read: filled by
// the actions, read and cleared by invariantsAfter.
type stepEffects struct {
	// logFrom is the first index whose entry the step changed in its
	// broker's log (0: none changed, only appended).
	logFrom uint64
	// acked is the write the step acknowledged (Answer), if any, and
	// ackedIn its group.
	acked   *ackedWrite
	ackedIn *traceGroup
	// promoted is set by a Promote.
	promoted bool
}

// logChangedFrom notes the first index at which the log of broker b goes
// from old to nl by changing (or dropping) an entry old held.
func (v *TraceValidator) logChangedFrom(b uint64, old, nl []modeltrace.Entry) {
	for i := range old {
		if i >= len(nl) || old[i] != nl[i] {
			v.pending.logFrom = uint64(i + 1)
			return
		}
	}
}

// extendCommitted appends es, committed by the leader of term, to the
// committed prefix, with the configurations its membership changes give.
func (g *traceGroup) extendCommitted(es []modeltrace.Entry, term uint64) {
	m := bootstrapMembership(g.peers)
	if n := len(g.confPoints); n > 0 {
		m = g.confPoints[n-1].conf
	}
	for _, e := range es {
		g.committed = append(g.committed, e)
		g.commitTerms = append(g.commitTerms, term)
		g.resolveOverwritten(uint64(len(g.committed)))
		if c, ok := g.confs[e.Digest]; ok && e.Digest != 0 {
			if next, err := m.fold(c); err == nil {
				m = next
			}
			g.confPoints = append(g.confPoints, confPoint{index: uint64(len(g.committed)), conf: m})
		}
	}
}

// acknowledge records that the write at raft index i, written at offset,
// was acknowledged, and returns its record. The entry was applied, so it
// is committed.
func (g *traceGroup) acknowledge(i, offset uint64) *ackedWrite {
	if i < 1 || i > uint64(len(g.committed)) {
		panic(fmt.Sprintf("tla: trace: group %d acknowledges entry %d, outside the committed prefix 1..%d", g.id, i, len(g.committed)))
	}
	a := ackedWrite{index: i, entry: g.committed[i-1], commitTerm: g.commitTerms[i-1], offset: offset,
		voterSets: [][]uint64{bootstrapMembership(g.peers).voters}}
	if c, ok := g.writeAt(a.entry, i); ok {
		a.tenant = g.tenantOf(c.scope)
	}
	for _, p := range g.confPoints {
		if p.index < i {
			a.voterSets = append(a.voterSets, p.conf.voters)
		}
	}
	j := sort.Search(len(g.acked), func(j int) bool { return g.acked[j].index > i })
	g.acked = slices.Insert(g.acked, j, a)
	return &g.acked[j]
}

// invariantsAfter evaluates, after step s (of group g, nil for an
// Answer) took effect, the invariants it may have changed; nil when they
// all hold. An Answer's break is in the group of the write it answered,
// which it returns with the break.
func (v *TraceValidator) invariantsAfter(g *traceGroup, s *modeltrace.Step) (*traceGroup, *invariantBreak) {
	e := v.pending
	v.pending = stepEffects{}
	if e.acked != nil {
		return e.ackedIn, e.ackedIn.committedNeverLost(e.acked)
	}
	return g, v.groupInvariants(g, s, e)
}

// groupInvariants evaluates the invariants step s of group g may have
// changed (e: what it changed).
func (v *TraceValidator) groupInvariants(g *traceGroup, s *modeltrace.Step, e stepEffects) *invariantBreak {
	if g == nil {
		return nil
	}
	if s.Kind.Reads() {
		return g.readRules(s)
	}
	if e.promoted {
		for j := range g.acked {
			if br := g.committedNeverLost(&g.acked[j]); br != nil {
				return br
			}
		}
	}
	if e.logFrom != 0 {
		for j := sort.Search(len(g.acked), func(j int) bool { return g.acked[j].index >= e.logFrom }); j < len(g.acked); j++ {
			if br := g.committedNeverLost(&g.acked[j]); br != nil {
				return br
			}
		}
	}
	return nil
}

// committedNeverLost is the model's CommittedNeverLost for one
// acknowledged write: a quorum of a configuration it may have been
// committed in (the bootstrap one or one a change before it gives) holds
// its entry in their stored logs, and every leader of the term that
// committed it or a later one holds it. (Its third part, every replica
// that applied that far has the record at its offset, holds by
// construction here: the trace state keeps one record per offset, which
// every replica's Apply must match.)
func (g *traceGroup) committedNeverLost(a *ackedWrite) *invariantBreak {
	holds := func(q uint64) bool {
		if q >= uint64(len(g.brokers)) || g.brokers[q] == nil {
			return false
		}
		l := g.brokers[q].log
		return uint64(len(l)) >= a.index && l[a.index-1] == a.entry
	}
	var holders []uint64
	for q := range g.brokers {
		if holds(uint64(q)) {
			holders = append(holders, uint64(q))
		}
	}
	quorum := false
	for _, vs := range a.voterSets {
		_, ok := membership{voters: vs}.quorum(holds)
		quorum = quorum || ok
	}
	if !quorum {
		return broke(properties.InvariantCommittedNeverLost, "the write acknowledged at offset %d of scope %q (entry %d, term %d) is stored by brokers %v only: a quorum of no configuration it may have been committed in (voters %v)",
			a.offset, a.tenant, a.index, a.entry.Term, holders, a.voterSets)
	}
	for l, br := range g.brokers {
		if br != nil && br.leads != 0 && br.leads >= a.commitTerm && !holds(uint64(l)) {
			return broke(properties.InvariantCommittedNeverLost, "broker %d leads term %d but its log 1..%d lacks entry %d (term %d), the write acknowledged at offset %d of scope %q, which the leader of term %d committed",
				l, br.leads, len(br.log), a.index, a.entry.Term, a.offset, a.tenant, a.commitTerm)
		}
	}
	return nil
}
