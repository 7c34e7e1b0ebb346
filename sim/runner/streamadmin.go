package runner

import (
	"fmt"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/wire"
)

// A run whose plan administers a stream (faultplan.Plan.AdministersStream) gets
// one more stream, AdminStream, that the plan's streamdelete and
// streamcreate faults delete and create again (see cluster.StreamAdmin).
// The workload does not touch it: its history checks assume streams that
// live for the whole run. Instead the liveness probe writes and reads it
// throughout the fault phase, as the liveness tenant (whose records no
// history holds), and consumes it through a consumer group, and
// properties.IncarnationsApart judges those ops against the operator's
// changes.

// AdminStream is the administered stream's name (in Namespace), one shard.
const AdminStream = "order-admin"

// Admin traffic: every adminTrafficEveryNs the probe sends a state read
// of adminKey to the shard's leader, every adminWriteEverySteps-th time
// also a commit putting a fresh value under it, every
// adminFetchEverySteps-th time a fetch of one record for the consumer
// group adminGroup, and takes the answers that arrived, acking each
// record a fetch was handed. Reads outnumber writes so that a read of a
// new generation often comes before its first write: a value the old
// generation left would not be hidden behind a new one. The group is a
// slow consumer (one record per fetch, fetches rarer than writes), so it
// lags when the operator deletes the stream and has somewhere to restart
// from in the new generation. An op unanswered adminAnswerWaitNs after
// it was sent stays without an answer (AnsweredNs 0; its late answer is
// still taken). adminOpsMax caps the ops recorded (overflow policy: no
// new op is sent).
const (
	adminTrafficEveryNs  = 50_000_000
	adminWriteEverySteps = 4
	adminFetchEverySteps = 6
	adminAnswerWaitNs    = 2_000_000_000
	adminKey             = "admin-key"
	adminGroup           = "admin-group"
	adminLeaseNs         = 1_000_000_000
	adminOpsMax          = 1 << 14
)

// adminAck marks, in adminTraffic.open, a group ack: its answer is taken
// and dropped (the next fetches show what the acks did).
const adminAck = -1

// adminTraffic is the probe's traffic on the administered stream.
type adminTraffic struct {
	r     *run
	scope felix.Scope
	group uint64
	ops   []properties.StreamOp
	steps int
	// open maps a request id still unanswered to its op's index (or
	// adminAck), with the ids in send order for a deterministic walk.
	open    map[uint64]int
	openIDs []uint64
	// firstFetchNs is when the group's first answered fetch was sent (0:
	// none yet), to count a fetch across a re-creation.
	firstFetchNs int64
}

// adminScope is where the admin traffic goes.
func adminScope() felix.Scope {
	return felix.Scope{Tenant: livenessTenant, Namespace: Namespace, Stream: AdminStream}
}

// startAdminTraffic schedules the admin traffic's first step.
func (r *run) startAdminTraffic() {
	sc := adminScope()
	r.admin = &adminTraffic{r: r, scope: sc, group: r.c.RaftGroupOf(sc.Namespace, sc.Stream, 0), open: map[uint64]int{}}
	r.c.World.At(adminTrafficEveryNs, 0, r.admin.step)
}

// step takes the answers that arrived and, within the fault phase, sends
// a commit and a read to the shard's leader.
func (a *adminTraffic) step() {
	w := a.r.c.World
	now := w.NowNs()
	a.take(now)
	if now >= a.r.opts.DurationNs {
		return
	}
	w.At(now+adminTrafficEveryNs, 0, a.step)
	lead, ok := a.r.c.Leader(a.group)
	if !ok || len(a.ops)+2 > adminOpsMax {
		return
	}
	a.send(lead, properties.StreamOp{Kind: properties.StreamOpRead, InvokedNs: now}, &wire.StateGet{Key: adminKey})
	if a.steps++; a.steps%adminWriteEverySteps == 0 {
		value := fmt.Sprintf("v%d", len(a.ops))
		a.send(lead, properties.StreamOp{Kind: properties.StreamOpWrite, InvokedNs: now, Value: value},
			&wire.Commit{Record: felix.Record{Event: felix.EventPublish, Payload: []byte(value),
				Ops: []felix.StateOp{{Kind: felix.OpPut, Key: adminKey, Value: []byte(value)}}}})
	}
	if a.steps%adminFetchEverySteps == 0 && len(a.ops) < adminOpsMax {
		a.send(lead, properties.StreamOp{Kind: properties.StreamOpGroupFetch, InvokedNs: now},
			&wire.GroupFetch{Group: adminGroup, MaxEntries: 1, LeaseNs: adminLeaseNs})
	}
}

// send sends body to lead and records op for it.
func (a *adminTraffic) send(lead uint64, op properties.StreamOp, body wire.RequestBody) {
	id := a.r.probe.Send(lead, &wire.Request{Scope: a.scope, Body: body})
	a.open[id] = len(a.ops)
	a.openIDs = append(a.openIDs, id)
	a.ops = append(a.ops, op)
}

// take records every answer that arrived; an answer later than
// adminAnswerWaitNs is taken and dropped.
func (a *adminTraffic) take(now int64) {
	keep := a.openIDs[:0]
	for _, id := range a.openIDs {
		i := a.open[id]
		ans, ok := a.r.probe.Take(id)
		if !ok {
			keep = append(keep, id)
			continue
		}
		delete(a.open, id)
		if i == adminAck {
			continue
		}
		op := &a.ops[i]
		if now-op.InvokedNs > adminAnswerWaitNs {
			continue
		}
		op.AnsweredNs = now
		a.record(op, ans.Body)
	}
	a.openIDs = keep
}

// record reads an answer into its op and counts the coverage it shows.
func (a *adminTraffic) record(op *properties.StreamOp, body wire.AnswerBody) {
	switch b := body.(type) {
	case *wire.Written:
		op.Written = true
	case *wire.StateValue:
		op.Found, op.Value, op.Version = b.Found, string(b.Value), b.Version
		if ch := a.r.c.StreamChanges(); len(ch) > 1 {
			if last := ch[len(ch)-1]; !last.Deleted && last.DoneNs != 0 && op.InvokedNs > last.DoneNs {
				a.r.counts.Add(coverage.StreamReadNewGeneration)
			}
		}
	case *wire.Deliveries:
		for _, e := range b.Entries {
			op.Values = append(op.Values, string(e.Record.Payload))
			a.ack(e.Offset)
		}
		a.countAcrossRecreate(op)
	case *wire.Error:
		if b.Code == wire.CodeUnknownStream {
			a.r.counts.Add(coverage.StreamRequestRefusedDeleted)
		}
		op.BeforeWindow = op.Kind == properties.StreamOpGroupFetch && b.Code == wire.CodeBeforeWindow
	}
}

// ack acks the record at offset for the group at the shard's leader now
// (none: its lease expires and a later fetch is handed it again).
func (a *adminTraffic) ack(offset uint64) {
	lead, ok := a.r.c.Leader(a.group)
	if !ok {
		return
	}
	id := a.r.probe.Send(lead, &wire.Request{Scope: a.scope, Body: &wire.GroupAck{Group: adminGroup, Offset: offset}})
	a.open[id] = adminAck
	a.openIDs = append(a.openIDs, id)
}

// countAcrossRecreate counts an answered fetch sent after the last
// change, a create, was done, by the group that had fetched before that
// create was asked: it fetched in one generation and then in the next
// (coverage.StreamGroupAcrossRecreate).
func (a *adminTraffic) countAcrossRecreate(op *properties.StreamOp) {
	if ch := a.r.c.StreamChanges(); len(ch) > 0 {
		last := ch[len(ch)-1]
		if !last.Deleted && last.DoneNs != 0 && op.InvokedNs > last.DoneNs && a.firstFetchNs != 0 && a.firstFetchNs < last.AtNs {
			a.r.counts.Add(coverage.StreamGroupAcrossRecreate)
		}
	}
	if a.firstFetchNs == 0 {
		a.firstFetchNs = op.InvokedNs
	}
}

// check judges the admin traffic against the operator's changes.
func (a *adminTraffic) check() error {
	var changes []properties.StreamChange
	for _, c := range a.r.c.StreamChanges() {
		changes = append(changes, properties.StreamChange{Deleted: c.Deleted, AskedNs: c.AtNs, DoneNs: c.DoneNs, Proposed: c.Proposed})
	}
	if at, ok := a.r.c.StreamChangesUnlistedFromNs(); ok {
		changes = append(changes, properties.StreamChange{AskedNs: at, Unlisted: true})
	}
	return properties.IncarnationsApart(changes, a.ops)
}

// adminTopology adds the administered stream to a topology.
func adminTopology(streams []node.StreamSpec) []node.StreamSpec {
	s := cluster.DefaultStreams(1)[0]
	s.Namespace, s.Stream = Namespace, AdminStream
	return append(streams, s)
}
