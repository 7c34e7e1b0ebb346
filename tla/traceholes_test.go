package tla

import (
	"sort"
	"testing"

	"github.com/felixsim/felixsim/modeltrace"
)

// The four holes of issue 31's item 3, each a hand edit of a base trace
// (editBaseRetain) that
// the validator (and TLC, tla/README.md) must refuse at the edited step:
// a follower that takes a deposed leader's entries after voting in a
// newer term; a state read claiming a retention point below the one an
// earlier read of its scope saw; a follower that serves a state read
// older than a write already answered; a valid commit applied as an error
// on every broker, and a follower that applies as an error, before its
// leader, what the leader writes.

// stepsOf is the validator's state before step at (from 1): base's steps
// before it replayed through a fresh validator.
func stepsOf(base []modeltrace.Step, at int) *TraceValidator {
	v := NewTraceValidator(3)
	modeltrace.Replay(base[:at-1], v)
	return v
}

// editFollowerTakesDeposedEntries: a follower's Persist of a leader's
// entries (taken in that leader's term) is moved to just after the
// follower's next vote in a newer term, with nothing of that follower
// between them: it now stores the deposed leader's entries after voting
// in a newer term, which raft refuses (the append's term is older than
// the follower's).
func editFollowerTakesDeposedEntries(t *testing.T, base []modeltrace.Step) ([]modeltrace.Step, int) {
	for p := range base {
		ps := &base[p]
		if ps.Kind != modeltrace.Persist || ps.Term == 0 || !followerPersist(base, p) {
			continue
		}
		for v := p + 1; v < len(base); v++ {
			s := &base[v]
			if s.Kind != modeltrace.Vote || s.Group != ps.Group || s.Broker != ps.Broker || s.Term <= ps.Term {
				continue
			}
			out := move(base, p, v)
			if res := ValidateTrace(out, 3); !res.Valid && res.Rejection.Step == v+1 {
				return out, v + 1
			}
			break
		}
	}
	t.Fatal("the base trace holds no follower Persist that can follow its vote in a newer term")
	return nil, 0
}

// followerPersist reports whether step p of base is a Persist of entries
// some leader sent (a follower's Replicate), none of the broker's own.
func followerPersist(base []modeltrace.Step, p int) bool {
	v := stepsOf(base, p+1)
	g := v.groups[base[p].Group]
	if g == nil {
		return false
	}
	for j, e := range base[p].Entries {
		if _, ok := g.entries.sent(entryKey{e.Term, base[p].Index + uint64(j)}); !ok {
			return false
		}
	}
	return g.broker(base[p].Broker).leads == 0
}

// editRetentionPointLowered: the first state read of a scope whose first
// retained offset is past 0 (a retention step dropped records), after an
// earlier read of the scope saw it there, claims the scope is retained
// from offset 0 again.
func editRetentionPointLowered(t *testing.T, base []modeltrace.Step) ([]modeltrace.Step, int) {
	seen := map[string]uint64{} // scope -> the highest first offset a read saw
	for j := range base {
		s := &base[j]
		if s.Kind != modeltrace.StateRead && s.Kind != modeltrace.SubscriberRead {
			continue
		}
		if f, ok := seen[s.Tenant]; ok && f > 0 && s.Kind == modeltrace.StateRead {
			base[j].First = 0
			return base, j + 1
		}
		seen[s.Tenant] = max(seen[s.Tenant], s.First)
	}
	t.Fatal("the base trace holds no two reads of a scope retained past offset 0")
	return nil, 0
}

// editFollowerReadsStale: the first state read begun after a write was
// answered is moved to a follower whose applied state lacks that write:
// the read's start and the read itself become that follower's, served at
// its applied index (claimed as the read index) with what its applied
// state holds for the key.
func editFollowerReadsStale(t *testing.T, base []modeltrace.Step) ([]modeltrace.Step, int) {
	for j := range base {
		rs := &base[j]
		if rs.Kind != modeltrace.ReadStart {
			continue
		}
		v := stepsOf(base, j+1)
		g := v.groups[rs.Group]
		f := staleFollower(g, rs.Broker)
		if f == 0 {
			continue
		}
		r := servedAt(base, j)
		if r < 0 {
			continue
		}
		br := g.broker(f)
		base[j].Broker = f
		s := &base[r]
		s.Broker, s.Applied, s.ReadIndex = f, br.applied, br.applied
		id, ok := g.scopeIDs[s.Tenant]
		if !ok {
			id = -1
		}
		s.First = br.firstIn(id)
		s.Found, s.Digest, s.Offset = false, 0, 0
		if last, ok := lastTouch(g, id, s.Key, br.nextIn(id)); ok && !last.del && last.offset >= s.First {
			s.Found, s.Digest, s.Offset = true, last.value, last.offset
		}
		return base, r + 1
	}
	t.Fatal("the base trace holds no read begun while a follower lacked an answered write")
	return nil, 0
}

// staleFollower is a started broker of g other than leader whose applied
// index is below the highest answered one (0: none).
func staleFollower(g *traceGroup, leader uint64) uint64 {
	for b := uint64(1); b < uint64(len(g.brokers)); b++ {
		if br := g.brokers[b]; b != leader && br != nil && br.up && br.applied < g.answeredMax {
			return b
		}
	}
	return 0
}

// servedAt is the position of the StateRead serving the read begun at
// position j (-1: none).
func servedAt(base []modeltrace.Step, j int) int {
	rs := &base[j]
	for r := j + 1; r < len(base); r++ {
		if s := &base[r]; s.Kind == modeltrace.StateRead && s.Broker == rs.Broker && s.Client == rs.Client && s.ReqID == rs.ReqID {
			return r
		}
	}
	return -1
}

// lastTouch is the last record of scope id below offset next that touches
// key k.
func lastTouch(g *traceGroup, id int, k string, next uint64) (keyTouch, bool) {
	if id < 0 || id >= len(g.keyTouches) {
		return keyTouch{}, false
	}
	ts := g.keyTouches[id][k]
	n := sort.Search(len(ts), func(i int) bool { return ts[i].offset >= next })
	if n == 0 {
		return keyTouch{}, false
	}
	return ts[n-1], true
}

// editCommitAppliedAsError: every Apply of the first commit (a write with
// state operations) written, on every broker, becomes a refusal with
// FeatureNotFinalized, though the group has atomic_commit finalized: the
// first of them is the edited step.
func editCommitAppliedAsError(t *testing.T, base []modeltrace.Step) ([]modeltrace.Step, int) {
	at := firstWhere(t, base, func(v *TraceValidator, g *traceGroup, s *modeltrace.Step) bool {
		w, ok := g.writes[s.Digest]
		return s.Kind == modeltrace.Apply && s.Outcome == modeltrace.OutcomeWritten && ok && w.w.Ops > 0 && g.broker(s.Broker).finalized
	})
	x, group := base[at-1].Index, base[at-1].Group
	for j := at - 1; j < len(base); j++ {
		if s := &base[j]; s.Kind == modeltrace.Apply && s.Group == group && s.Index == x {
			s.Outcome, s.Offset, s.Error = modeltrace.OutcomeError, 0, errNotFinalized
		}
	}
	return base, at
}

// editFollowerErrsFirst: the first Apply of a written record by a broker
// that does not lead the entry's term, where it applies the entry before
// that term's leader does, becomes a refusal with an error (as the stream
// were deleted).
func editFollowerErrsFirst(t *testing.T, base []modeltrace.Step) ([]modeltrace.Step, int) {
	at := firstWhere(t, base, func(v *TraceValidator, g *traceGroup, s *modeltrace.Step) bool {
		first := s.Index >= uint64(len(g.outcomes)) || !g.outcomes[s.Index].set
		return s.Kind == modeltrace.Apply && s.Outcome == modeltrace.OutcomeWritten && g.leaders[s.Term] != s.Broker && first
	})
	base[at-1].Outcome, base[at-1].Offset, base[at-1].Error = modeltrace.OutcomeError, 0, errDeleted
	return base, at
}
