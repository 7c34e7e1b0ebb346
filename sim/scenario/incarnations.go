package scenario

// This file judges a scenario's stream deletes and creates as a run
// judges its administered stream (properties.IncarnationsApart): each
// stream delete or create waits until every shard of the stream applied
// it, and check holds the history's writes and consumer-group fetches on
// a stream the scenario changed against those changes.

import (
	"fmt"
	"strings"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/wire"
)

// StreamChangesMax caps the stream changes a scenario records; later ones
// are carried out but not judged.
const StreamChangesMax = 64

// streamChange is one stream delete or create the scenario made.
type streamChange struct {
	namespace, stream string
	change            properties.StreamChange
}

// awaitIncarnation runs the world until every shard of ns/stream has a
// running broker that applied the incarnation the metadata leader holds
// for it, within WaitBudgetNs, and records the change asked at askedNs.
func (r *Runner) awaitIncarnation(kind node.AdminKind, ns, stream string, askedNs int64) error {
	c := r.c
	done := func() (bool, string) {
		lead, ok := c.Leader(node.MetaGroup)
		if !ok || c.Node(lead) == nil {
			return false, "the metadata group's leader"
		}
		md := c.Node(lead).Metadata()
		want, ok := md.IncarnationOf(ns, stream)
		if !ok {
			return false, fmt.Sprintf("stream %s/%s in the metadata", ns, stream)
		}
		for _, spec := range c.Config().Streams {
			if spec.Namespace != ns || spec.Stream != stream {
				continue
			}
			for shard := uint32(0); shard < spec.Shards; shard++ {
				if !r.someBrokerHolds(c.RaftGroupOf(ns, stream, shard), want) {
					return false, fmt.Sprintf("shard %d of %s/%s at %s", shard, ns, stream, want)
				}
			}
		}
		return true, ""
	}
	if err := c.World.RunUntil(done, WaitBudgetNs); err != nil {
		return err
	}
	if len(r.changes) < StreamChangesMax {
		r.changes = append(r.changes, streamChange{namespace: ns, stream: stream, change: properties.StreamChange{
			Deleted: kind == node.AdminStreamDelete, AskedNs: askedNs, DoneNs: c.World.NowNs(), Proposed: true}})
	}
	return nil
}

// someBrokerHolds reports whether a running broker's shard group group
// has applied inc.
func (r *Runner) someBrokerHolds(group uint64, inc node.StreamIncarnation) bool {
	for i := 0; i < r.c.Brokers(); i++ {
		if n := r.c.Node(r.c.IdentityOf(i)); n != nil {
			if got, ok := n.Incarnation(group); ok && got == inc {
				return true
			}
		}
	}
	return false
}

// incarnationViolations judges h's writes and group fetches on every
// stream the scenario deleted or created against its changes. A write's
// value is its event's payload; a payload written more than once names no
// one write, so it is left out.
func (r *Runner) incarnationViolations(h *properties.History) []error {
	var out []error
	for _, key := range r.changedStreams() {
		var changes []properties.StreamChange
		for _, ch := range r.changes {
			if ch.namespace == key[0] && ch.stream == key[1] {
				changes = append(changes, ch.change)
			}
		}
		if err := properties.IncarnationsApart(changes, streamOpsOf(h, key[0], key[1])); err != nil {
			out = append(out, err)
		}
	}
	return out
}

// changedStreams lists the streams the scenario changed, in first-change order.
func (r *Runner) changedStreams() [][2]string {
	var out [][2]string
	for _, ch := range r.changes {
		k := [2]string{ch.namespace, ch.stream}
		seen := false
		for _, o := range out {
			seen = seen || o == k
		}
		if !seen {
			out = append(out, k)
		}
	}
	return out
}

// streamOpsOf converts h's writes and group fetches on ns/stream.
func streamOpsOf(h *properties.History, ns, stream string) []properties.StreamOp {
	writes := map[string]int{}
	for i := range h.Ops {
		if op := &h.Ops[i]; op.Kind.IsWrite() && op.Scope.Namespace == ns && op.Scope.Stream == stream {
			writes[string(op.Record.Payload)]++
		}
	}
	var out []properties.StreamOp
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Scope.Namespace != ns || op.Scope.Stream != stream || op.Outcome == properties.OutcomePending {
			continue
		}
		so := properties.StreamOp{InvokedNs: op.InvokeNs, AnsweredNs: op.CompleteNs}
		switch {
		case op.Kind.IsWrite() && writes[string(op.Record.Payload)] == 1:
			so.Kind, so.Value, so.Written = properties.StreamOpWrite, string(op.Record.Payload), op.Outcome == properties.OutcomeOK
		case op.Kind == properties.HistoryGroupFetch:
			so.Kind = properties.StreamOpGroupFetch
			so.BeforeWindow = op.Outcome == properties.OutcomeFailed && strings.Contains(op.Error, wire.CodeBeforeWindow.String())
			for _, e := range op.Entries {
				so.Values = append(so.Values, string(e.Record.Payload))
			}
		default:
			continue
		}
		out = append(out, so)
	}
	return out
}
