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

// OneApplyingAtATime keeps the states in which at most one broker holds
// a commit mark past what it applied. A broker advances its mark and
// applies what the mark covers in one Ready round, whose trace steps are
// emitted together (node/tracehook.go), so between two rounds no broker
// is behind its mark, and within a round only the round's broker is: a
// broker's trace never shows two brokers behind their marks at once,
// whatever the faults. The model applies one entry per step, in any
// interleaving, and reaches such states freely.
func OneApplyingAtATime(states []ProjectedState) []ProjectedState {
	var out []ProjectedState
	for _, p := range states {
		x := uint32(p)
		behind := 0
		for _, c := range [projectedBrokers]uint32{x / (162 * 162), x / 162 % 162, x % 162} {
			if v := viewOf(c); v.committed > v.applied {
				behind++
			}
		}
		if behind <= 1 {
			out = append(out, p)
		}
	}
	return out
}
