package tla

import "fmt"

// The broker-reachable projection: which projected states a broker can
// show at all. The model's Crash forgets the commit mark and the applied
// state (volatile there); the broker persists both, in one store commit
// with the state, beside raft's hard state. So some of the model's
// projected states (a restarted broker that has not re-learned its mark)
// never appear in a broker's trace, and some broker states (every broker
// applied both writes, the leader restarted) are outside the model's. A
// variant of the mirror whose Crash keeps what the broker keeps measures
// the first: ReachableProjectedBroker.

// crashKeeping is Crash as the broker does it: b restarts with its term,
// vote and persisted log, and with its commit mark and applied state; it
// loses its role and what it had received. The broker applies only
// entries it persisted and persists its commit mark with the entries it
// covers (raft's hard state), so a crash where b applied past its
// persisted log is not a broker's: no successor. The mark is cut to the
// persisted log.
func (m *model) crashKeeping(s *State, b int, t *State) bool {
	br := &s.b[b]
	if br.mid || br.applied > br.durable {
		return false
	}
	*t = *s
	tb := &t.b[b]
	tb.truncateLog(tb.durable)
	tb.commit = min(tb.commit, tb.durable)
	tb.role, tb.votes = roleFollower, 0
	tb.acked = [BrokersMax]uint8{}
	return true
}

// ReachableProjectedBroker returns the projections of every reachable
// state of the main config under the broker's Crash (crashKeeping),
// sorted.
func ReachableProjectedBroker() ([]ProjectedState, error) {
	cfg := Configs()[0]
	cfg.Invariants = false
	if cfg.Brokers != projectedBrokers || cfg.MaxCommits != ProjectedCommits || cfg.Variant != Atomic {
		panic(fmt.Sprintf("tla: the main config %v no longer has the projection's bounds", cfg))
	}
	seen := map[ProjectedState]bool{}
	e := &explorer{m: model{cfg: cfg, crashKeepsApplied: true}, visit: func(s *State) { seen[mirrorProjection(s)] = true }}
	if _, err := exploreWith(e, StatesMax); err != nil {
		return nil, err
	}
	return sortedStates(seen), nil
}
