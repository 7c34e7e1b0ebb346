package properties

import (
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/felix"
)

// ClusterScope is one scope (tenant, namespace, stream, shard) as every
// running broker holds it after heal and quiesce: one ReplicaView per
// broker, named after it.
type ClusterScope struct {
	Scope felix.Scope
	// FromStart is true when every replica still retains the scope's log
	// from offset 0, so that folding the log must give the state view.
	FromStart bool
	Replicas  []ReplicaView
}

// ClusterScopes regroups the brokers' views by scope, scopes ascending and
// each scope's replicas in the order of replicas. The views are shared,
// not copied: a ClusterScope's Replicas alias the ReplicaLogs' arrays.
func ClusterScopes(replicas []ReplicaLog) []ClusterScope {
	byScope := map[felix.Scope]int{}
	var out []ClusterScope
	for ri := range replicas {
		for si := range replicas[ri].Scopes {
			v := replicas[ri].Scopes[si]
			i, ok := byScope[v.Scope]
			if !ok {
				i = len(out)
				byScope[v.Scope] = i
				out = append(out, ClusterScope{Scope: v.Scope, FromStart: true})
			}
			out[i].FromStart = out[i].FromStart && v.FirstOffset == 0
			out[i].Replicas = append(out[i].Replicas, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Scope.Less(out[j].Scope) })
	return out
}

// ClusterFinding is one property that failed on one scope.
type ClusterFinding struct {
	Invariant InvariantName
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
//
// When intent is not nil (a scope every record of which some client
// wrote), NoPartialCommit also reads each replica as a reader would — its
// whole log as the events seen and its state view — and requires the
// state to be exactly what the clients' commits for those events carried:
// a broker that dropped a put from both its log and its state is caught
// here, where the fold alone would agree with itself.
func CheckClusterScope(cs *ClusterScope, acks []AckedWrite, written []ConditionalOutcome, intent IntentFunc) []ClusterFinding {
	var out []ClusterFinding
	add := func(name InvariantName, err error) {
		if err != nil {
			out = append(out, ClusterFinding{Invariant: name, Err: fmt.Errorf("scope %s: %w", cs.Scope, err)})
		}
	}
	add(InvariantCommittedPrefixAgreement, CommittedPrefixAgreement(cs.Replicas))
	for i := range cs.Replicas {
		if cs.FromStart {
			add(InvariantStateMatchesLog, StateMatchesLog(&cs.Replicas[i]))
		}
		add(InvariantVersionIsOffset, VersionIsOffset(&cs.Replicas[i]))
		if cs.FromStart && intent != nil {
			r := &cs.Replicas[i]
			add(InvariantNoPartialCommit, NoPartialCommit(&ReaderView{Broker: r.Name, Events: r.Log, State: r.State}, intent))
		}
	}
	add(InvariantCommittedNeverLost, CommittedNeverLost(acks, cs.Replicas))
	add(InvariantConditionalWrites, ConditionalWrites(written, cs.Replicas))
	return out
}

// HistoryAcks lists, per scope, the writes the history shows acknowledged,
// each named by its payload (the event CommittedNeverLost compares).
func HistoryAcks(h *History) map[felix.Scope][]AckedWrite {
	out := map[felix.Scope][]AckedWrite{}
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
func HistoryWrittenConditionals(h *History) map[felix.Scope][]ConditionalOutcome {
	out := map[felix.Scope][]ConditionalOutcome{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind.IsConditional() && op.Outcome == OutcomeOK {
			out[op.Scope] = append(out[op.Scope], ConditionalOutcome{Event: string(op.Record.Payload), ExpectedOffset: op.Record.ExpectedOffset, Written: true, Offset: op.Offset})
		}
	}
	return out
}

// HistoryIntents returns the state operations each write of the history
// carried, looked up by payload (the workload makes payloads unique; a
// retry carries its original's). Values compare as strings.
func HistoryIntents(h *History) IntentFunc {
	ops := map[string][]ViewOp{}
	for i := range h.Ops {
		op := &h.Ops[i]
		if !op.Kind.IsWrite() {
			continue
		}
		ops[string(op.Record.Payload)] = ViewEntryOf(0, op.Record).Ops
	}
	return func(event string) ([]ViewOp, bool) {
		v, ok := ops[event]
		return v, ok
	}
}
