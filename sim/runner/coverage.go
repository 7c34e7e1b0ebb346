package runner

import (
	"slices"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/relay"
)

// countHistory adds the workload's paths seen in its history: refused
// conditional writes, re-sent writes, publishes read by a live subscriber
// of an ephemeral stream, and writes an ephemeral stream refused.
func countHistory(c *coverage.Counts, h *properties.History) {
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind.IsConditional() && op.Outcome == properties.OutcomeRefused {
			c.Add(coverage.CommitIfRefused)
		}
		if op.RetryOf != 0 {
			c.Add(coverage.WriteRetried)
		}
		if op.Kind == properties.HistoryLiveRead && op.Outcome == properties.OutcomeOK {
			c.AddN(coverage.EphemeralDeliveredLive, uint64(len(op.Entries)))
		}
		if op.Kind.IsWrite() && slices.ContainsFunc(op.Requests, func(q properties.HistoryRequest) bool { return q.Answer == properties.AnswerEphemeralStream }) {
			c.Add(coverage.EphemeralCommitRefused)
		}
	}
}

// countLandedTwice counts the retried writes whose record sits at two or
// more offsets of the reference log of its scope (a retry of a write whose
// first send had landed after all). A record is identified by its event
// payload, which the workload makes unique per write and keeps on retry.
func countLandedTwice(c *coverage.Counts, h *properties.History, ref *properties.ReplicaLog) {
	seen := map[felix.Scope]map[string]int{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.RetryOf == 0 || op.Record == nil {
			continue
		}
		byEvent, ok := seen[op.Scope]
		if !ok {
			byEvent = map[string]int{}
			if v := ref.Scope(op.Scope); v != nil {
				for j := range v.Log {
					byEvent[v.Log[j].Event]++
				}
			}
			seen[op.Scope] = byEvent
		}
		if byEvent[string(op.Record.Payload)] >= 2 {
			c.Add(coverage.RetryLandedTwice)
		}
	}
}

// CoverageDeclared lists the points a run with these fault kinds is
// declared to count: the coverage package's points, then the fired and
// effect points of each kind in faults. A sweep reports each with its
// total, zero included, so that one never reached shows as never hit.
func CoverageDeclared(faults FaultSet) []coverage.Declaration {
	return append(coverage.Declared(), faultplan.FaultCoverage(faults.Kinds())...)
}

// countRelay counts the outbox relay's work over the run: what its sink
// received (and received again), its restarts and the restarts that
// found no usable position, its
// acknowledged trims.
func countRelay(c *coverage.Counts, rl *relay.Relay) {
	st := rl.Stats()
	c.AddN(coverage.RelayDelivered, uint64(rl.Sink().Len()))
	c.AddN(coverage.RelayRedelivered, rl.Sink().Redeliveries())
	if st.Boots > 1 {
		c.AddN(coverage.RelayRestarted, st.Boots-1)
	}
	if st.FreshStarts > 1 { // the first boot always finds an empty disk
		c.AddN(coverage.RelayFreshStart, st.FreshStarts-1)
	}
	c.AddN(coverage.RelayTrimmed, st.Trims)
}
