package tla

import "fmt"

// The bound on what a broker's trace can show: the projections of every
// state of the broker-shaped config (MCBrokerShape). The main config's
// model leaves out three things a broker does that the projection sees:
// the broker's crash keeps its commit mark and applied state (stored in
// one commit with what they cover; the model's Crash forgets them), a new
// leader appends an empty entry of its term (raft's, which lets it commit
// an older term's entries without a client's write), and a client's
// commit_if may expect an offset that writes pipelined before it move (so
// two writes proposed before either is applied are both written; the
// model's commit_if expects the leader's applied tail). MCBrokerShape adds
// all three (CrashKeep, EmptyEntries, ExpChoice), and a trace state the
// bound does not hold is a model gap: a broker step the model still
// leaves out (README.md, "Model coverage").

// crashKeeping is CrashKeep: b restarts with its term, vote and persisted
// log, and with its commit mark and applied state; it loses its role and
// what it had received. The broker applies only entries it persisted and
// persists its commit mark with the entries it covers (raft's hard
// state), so a crash where b applied past its persisted log is not a
// broker's: no successor. The mark is cut to the persisted log.
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

// BrokerShapeConfig is MCBrokerShape: the bound's config.
func BrokerShapeConfig() Config {
	for _, c := range Configs() {
		if c.Name == "MCBrokerShape" {
			return c
		}
	}
	panic("tla: no MCBrokerShape config")
}

// ReachableBound returns the projections of every reachable state of
// MCBrokerShape, sorted: the bound; and the exploration's result (every
// invariant checked on every state, as the config asks).
func ReachableBound() ([]ProjectedState, *Result, error) {
	return reachableProjections(BrokerShapeConfig())
}

// reachableProjections explores cfg and returns the projections of its
// states, sorted, and the exploration's result.
func reachableProjections(cfg Config) ([]ProjectedState, *Result, error) {
	if cfg.Brokers != projectedBrokers || cfg.MaxCommits != ProjectedCommits || cfg.Variant != Atomic {
		panic(fmt.Sprintf("tla: config %v does not have the projection's bounds", cfg))
	}
	seen := map[ProjectedState]bool{}
	e := &explorer{m: model{cfg: cfg}}
	e.visit = func(s *State) { seen[e.m.mirrorProjection(s)] = true }
	res, err := exploreWith(e, StatesMax)
	if err != nil {
		return nil, nil, err
	}
	return sortedStates(seen), res, nil
}
