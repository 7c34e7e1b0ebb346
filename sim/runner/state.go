package runner

import (
	"fmt"
	"strings"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/cluster"
)

// StateEntriesMax caps the log entries and state keys the --until dump
// lists for one scope on one broker; the rest are counted.
const StateEntriesMax = 50

// renderState describes the cluster as the last event at or before
// untilNs left it (the event ran at atNs): per broker whether it runs,
// per group each broker's term, believed leader, commit and applied
// index, each scope's offsets, and the named scope's log and state.
func renderState(c *cluster.Cluster, atNs, untilNs int64, scope string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cluster state at %s (the last event at or before %s ran at %s)\n", fmtNs(untilNs), fmtNs(untilNs), fmtNs(atNs))
	snap := c.Snapshot()
	for _, id := range snap.Down {
		fmt.Fprintf(&b, "broker %d: not running\n", id)
	}
	for g := uint64(1); g <= uint64(c.Groups()); g++ {
		if lead, ok := c.Leader(g); ok {
			fmt.Fprintf(&b, "group %d: leader broker %d\n", g, lead)
		} else {
			fmt.Fprintf(&b, "group %d: no leader\n", g)
		}
		for i := range snap.Replicas {
			v := &snap.Replicas[i]
			for _, gv := range v.RaftGroups {
				if gv.ID == g {
					writeGroup(&b, v.Node, &gv, scope)
				}
			}
		}
	}
	if scope != "" && !strings.Contains(b.String(), "scope "+scope+":") {
		fmt.Fprintf(&b, "scope %s: held by no running broker (scopes are tenant/namespace/stream/shard)\n", scope)
	}
	return b.String()
}

// writeGroup writes one broker's view of one group and its scopes.
func writeGroup(b *strings.Builder, broker uint64, gv *node.RaftGroupState, scope string) {
	role := "follower"
	if gv.Leader {
		role = "leader"
	}
	fmt.Fprintf(b, "  broker %d: %s, term %d, believes leader %d, commit %d, applied %d\n",
		broker, role, gv.Term, gv.Lead, gv.Commit, gv.Applied)
	for i := range gv.Scopes {
		sv := &gv.Scopes[i]
		name := sv.Scope.String()
		fmt.Fprintf(b, "    scope %s: offsets [%d, %d), %d state keys\n", name, sv.Shard.FirstOffset, sv.Shard.NextOffset, len(sv.Shard.State))
		if name == scope {
			writeScope(b, sv)
		}
	}
}

// writeScope lists a scope's retained log and state view, capped.
func writeScope(b *strings.Builder, sv *node.ScopeState) {
	sh := &sv.Shard
	for i, e := range sh.Entries {
		if i == StateEntriesMax {
			fmt.Fprintf(b, "      … %d more entries\n", len(sh.Entries)-i)
			break
		}
		fmt.Fprintf(b, "      log %s\n", entryLine(e))
	}
	for i, kv := range sh.State {
		if i == StateEntriesMax {
			fmt.Fprintf(b, "      … %d more keys\n", len(sh.State)-i)
			break
		}
		fmt.Fprintf(b, "      state %q = %q (version %d)\n", kv.Key, clipBytes(kv.Value), kv.Version)
	}
}

// entryLine renders one log entry: offset, event kind, payload and state ops.
func entryLine(e felix.Entry) string {
	var ops []string
	for _, op := range e.Record.Ops {
		ops = append(ops, fmt.Sprintf("%v %q=%q", op.Kind, op.Key, clipBytes(op.Value)))
	}
	return fmt.Sprintf("offset %d: %v %q [%s]", e.Offset, e.Record.Event, clipBytes(e.Record.Payload), strings.Join(ops, ", "))
}

// fmtNs renders simulated nanoseconds as seconds with millisecond precision.
func fmtNs(ns int64) string { return fmt.Sprintf("%.3fs", float64(ns)/1e9) }

// clipBytes shortens a value for one line.
func clipBytes(v []byte) string {
	if len(v) > 40 {
		return string(v[:40]) + "…"
	}
	return string(v)
}
