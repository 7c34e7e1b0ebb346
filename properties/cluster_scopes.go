package properties

import "fmt"

// ClusterScope is one scope (tenant, namespace, stream, shard) as every
// running broker holds it after heal and quiesce: one ReplicaView per
// broker, named after it.
type ClusterScope struct {
	Scope HistoryScope
	// FromStart is true when every replica still retains the scope's log
	// from offset 0, so that folding the log must give the state view.
	FromStart bool
	Replicas  []ReplicaView
}

// ClusterFinding is one property that failed on one scope.
type ClusterFinding struct {
	Invariant string
	Err       error
}

// CheckClusterScope runs the replica properties on one scope:
// CommittedPrefixAgreement across its replicas; StateMatchesLog (only
// when the log is retained from its start: a fold of a partial log
// proves nothing) and VersionIsOffset on each; CommittedNeverLost for the
// writes acknowledged on it; and ConditionalWrites for its written
// conditional answers and the conditional records the replicas hold.
// Refused conditional answers are HistoryConditionalWrites' business: a
// duplicated request may land while its twin is refused.
func CheckClusterScope(cs *ClusterScope, acks []AckedWrite, written []ConditionalOutcome) []ClusterFinding {
	var out []ClusterFinding
	add := func(name string, err error) {
		if err != nil {
			out = append(out, ClusterFinding{Invariant: name, Err: fmt.Errorf("scope %s: %w", cs.Scope, err)})
		}
	}
	add("CommittedPrefixAgreement", CommittedPrefixAgreement(cs.Replicas))
	for i := range cs.Replicas {
		if cs.FromStart {
			add("StateMatchesLog", StateMatchesLog(&cs.Replicas[i]))
		}
		add("VersionIsOffset", VersionIsOffset(&cs.Replicas[i]))
	}
	add("CommittedNeverLost", CommittedNeverLost(acks, cs.Replicas))
	add("ConditionalWrites", ConditionalWrites(written, cs.Replicas))
	return out
}

// HistoryAcks lists, per scope, the writes the history shows acknowledged,
// each named by its payload (the event CommittedNeverLost compares).
func HistoryAcks(h *History) map[HistoryScope][]AckedWrite {
	out := map[HistoryScope][]AckedWrite{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind.IsWrite() && op.Outcome == OutcomeOK {
			out[op.Scope] = append(out[op.Scope], AckedWrite{Event: string(op.Record.Payload), Offset: op.Offset})
		}
	}
	return out
}

// HistoryWrittenConditionals lists, per scope, the conditional writes the
// history shows written, as ConditionalWrites reads them.
func HistoryWrittenConditionals(h *History) map[HistoryScope][]ConditionalOutcome {
	out := map[HistoryScope][]ConditionalOutcome{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind.IsConditional() && op.Outcome == OutcomeOK {
			out[op.Scope] = append(out[op.Scope], ConditionalOutcome{Event: string(op.Record.Payload), ExpectedOffset: op.ExpectedOffset, Written: true, Offset: op.Offset})
		}
	}
	return out
}
