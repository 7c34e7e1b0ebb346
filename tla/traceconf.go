package tla

import (
	"fmt"
	"slices"

	"github.com/felixsim/felixsim/modeltrace"
)

// Membership in trace mode, as etcd raft has it: a broker's configuration
// is the one its applied membership changes give (a change takes effect
// when applied, not when stored), starting from the bootstrap voters
// 1..brokers; an identity that joins later (raft id past the bootstrap
// peers) starts with an empty log and no configuration, and learns one
// from a leader's snapshot. Elections and commits count only the deciding
// broker's voters: a candidate's votes from its voters, a leader's
// acknowledgements from its voters (learners replicate but neither vote
// nor count). Only simple changes (one identity at a time) are the
// model's; a joint change is refused.

// membership is a configuration: voters and learners, each ascending.
// Invariant: the two are disjoint.
type membership struct {
	voters, learners []uint64
}

// bootstrapMembership is every group's configuration at index 1: the
// cluster's peers 1..brokers, all voting.
func bootstrapMembership(brokers int) membership {
	m := membership{}
	for b := 1; b <= brokers; b++ {
		m.voters = append(m.voters, uint64(b))
	}
	return m
}

// isVoter reports whether b votes in m.
func (m membership) isVoter(b uint64) bool { return slices.Contains(m.voters, b) }

// quorum reports whether the brokers counted by has are a majority of m's
// voters.
func (m membership) quorum(has func(b uint64) bool) (count int, ok bool) {
	for _, q := range m.voters {
		if has(q) {
			count++
		}
	}
	return count, 2*count > len(m.voters)
}

// fold is m after change c, as raft's simple changes compute it, or an
// error naming why raft refuses it (the broker then skips the entry).
func (m membership) fold(c *modeltrace.ConfChange) (membership, error) {
	out := membership{voters: slices.DeleteFunc(slices.Clone(m.voters), func(x uint64) bool { return x == c.Node }),
		learners: slices.DeleteFunc(slices.Clone(m.learners), func(x uint64) bool { return x == c.Node })}
	switch c.Type {
	case modeltrace.AddVoter:
		out.voters = append(out.voters, c.Node)
	case modeltrace.AddLearner:
		out.learners = append(out.learners, c.Node)
	case modeltrace.Remove:
	default:
		return m, fmt.Errorf("membership change type %d is not the model's", uint8(c.Type))
	}
	if len(out.voters) == 0 {
		return m, fmt.Errorf("%v would leave no voter", c)
	}
	slices.Sort(out.voters)
	slices.Sort(out.learners)
	for _, l := range out.learners {
		if slices.Contains(out.voters, l) {
			panic(fmt.Sprintf("tla: trace: %v folded into %v gives %v: %d is both voter and learner", c, m, out, l))
		}
	}
	return out, nil
}

// String renders m for messages.
func (m membership) String() string {
	return fmt.Sprintf("voters %v learners %v", m.voters, m.learners)
}

// membershipAt is the configuration a broker holding log has once it
// applied up to index upto: the bootstrap one with every membership change
// in log[2..upto] folded in (a refused one skipped, as the broker does).
func (g *traceGroup) membershipAt(log []modeltrace.Entry, upto uint64) membership {
	m := bootstrapMembership(g.peers)
	for i := uint64(2); i <= upto && i <= uint64(len(log)); i++ {
		if c, ok := g.confs[log[i-1].Digest]; ok && log[i-1].Digest != 0 {
			if next, err := m.fold(c); err == nil {
				m = next
			}
		}
	}
	return m
}

// proposeConf is the leader's half of the model's Reconfigure: the leader
// of the change's term appends a membership change, only once it applied
// every entry before its term (raft's pending-change guard: a new leader
// may not change membership before it applied its predecessors' log) and
// every change its log holds.
func (v *TraceValidator) proposeConf(g *traceGroup, s *modeltrace.Step) error {
	br := g.broker(s.Broker)
	switch {
	case br.leads != s.Term || g.leaders[s.Term] != s.Broker:
		return fmt.Errorf("broker %d proposes a membership change in term %d, which it does not lead (it leads %d)", s.Broker, s.Term, br.leads)
	case s.Digest == 0:
		return fmt.Errorf("the membership change has no data")
	case s.Change == nil || !s.Change.Type.Valid():
		return fmt.Errorf("the membership change %v is not the model's: only simple changes of one identity (add_voter, add_learner, remove) are", s.Change)
	}
	if old, ok := g.confs[s.Digest]; ok && !sameChange(old, s.Change) {
		return fmt.Errorf("proposal %016x was already proposed as the change %v, not %v", s.Digest, old, s.Change)
	}
	for i := br.applied + 1; i <= uint64(len(br.log)); i++ {
		e := br.log[i-1]
		if e.Term < s.Term {
			return fmt.Errorf("broker %d has not applied entry %d of the older term %d (applied %d): a new leader changes membership only after applying its predecessors' log", s.Broker, i, e.Term, br.applied)
		}
		if _, ok := g.confs[e.Digest]; ok && e.Digest != 0 {
			return fmt.Errorf("broker %d's membership change at entry %d is not applied yet (applied %d): one change at a time", s.Broker, i, br.applied)
		}
	}
	c := *s.Change
	g.confs[s.Digest] = &c
	return nil
}

func sameChange(a, b *modeltrace.ConfChange) bool { return a != nil && b != nil && *a == *b }

// applyConf is the model's Apply of a membership change: b applies its
// next committed entry, a change some leader proposed, and its
// configuration becomes the change folded into the one it had (unchanged
// if raft refuses the change, which the broker then skips).
func (v *TraceValidator) applyConf(g *traceGroup, s *modeltrace.Step) error {
	br := g.broker(s.Broker)
	if err := v.nextApply(br, s); err != nil {
		return err
	}
	c, ok := g.confs[s.Digest]
	if !ok || s.Digest == 0 {
		return fmt.Errorf("entry %d (data %016x) is no membership change a leader proposed", s.Index, s.Digest)
	}
	want, _ := br.conf.fold(c) // a refused change leaves the configuration
	got := membership{voters: s.Voters, learners: s.Learners}
	if !slices.Equal(got.voters, want.voters) || !slices.Equal(got.learners, want.learners) {
		return fmt.Errorf("applying %v to %v gives %v, but the broker has %v", c, br.conf, want, got)
	}
	br.conf = want
	br.applied = s.Index
	return nil
}

// nextApply checks that s applies b's next entry, committed, as stored.
func (v *TraceValidator) nextApply(br *traceBroker, s *modeltrace.Step) error {
	i := s.Index
	switch {
	case i != br.applied+1:
		return fmt.Errorf("applies entry %d after %d", i, br.applied)
	case i > br.commit:
		return fmt.Errorf("entry %d is not committed (commit mark %d)", i, br.commit)
	case br.log[i-1] != (modeltrace.Entry{Term: s.Term, Digest: s.Digest}):
		return fmt.Errorf("entry %d is term %d data %016x, but the stored log holds term %d data %016x", i, s.Term, s.Digest, br.log[i-1].Term, br.log[i-1].Digest)
	}
	return nil
}
