package workload

import (
	"errors"
	"fmt"

	"github.com/felixsim/felixsim/client"
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/prng"
)

// writeSpec is one unconditional or conditional write as generated: what
// the client sends and what the history records. A retry re-sends it.
type writeSpec struct {
	kind properties.HistoryKind
	// tenant is the tenant written to ("": the client's own; see arrivals.go).
	tenant  string
	stream  string
	entity  string
	ops     []client.CommitOp // commit and commit_if
	payload []byte            // publish, publish_if and enqueue
	rec     felix.Record
}

// invokeRandom invokes one operation drawn from the mix with r:
// LiveSlotsPct percent of the slots go to the live stream (invokeLive),
// the rest to the quorum streams. A sticky client (Config.StickyClients)
// is a reader: half its slots are state reads, so that a deposed leader
// it keeps reaching after the others moved on is asked for reads
// (coverage.ClientReadToDeposedLeader), the reads a leader must not
// serve without confirming it still leads.
func (p *proc) invokeRandom(now int64, r *prng.Rand) {
	if p.sticky() && r.Intn(2) == 0 {
		p.stateGet(now, r)
		return
	}
	if r.Intn(100) < LiveSlotsPct {
		p.invokeLive(now, r)
		return
	}
	switch n := r.Intn(100); {
	case n < 2:
		p.write(now, p.newCrossStreamCommit(r), 0)
	case n < 26:
		p.write(now, p.newCommit(r, properties.HistoryCommit, p.stream(r)), 0)
	case n < 36:
		p.write(now, p.newCommit(r, properties.HistoryCommitIf, p.stream(r)), 0)
	case n < 44:
		p.write(now, p.newEvent(r, properties.HistoryPublish), 0)
	case n < 50:
		p.write(now, p.newEvent(r, properties.HistoryPublishIf), 0)
	case n < 58:
		p.write(now, p.newEvent(r, properties.HistoryEnqueue), 0)
	case n < 80:
		p.stateGet(now, r)
	case n < 90:
		p.subscribe(now, r)
	default:
		p.groupFetch(now, r)
	}
}

// sticky reports whether this client keeps its broker after a timeout.
func (p *proc) sticky() bool { return p.index >= p.w.cfg.Clients-p.w.cfg.StickyClients }

// tag is a string no other write of this run carries: tenant, client, sequence.
func (p *proc) tag() string {
	p.seq++
	return fmt.Sprintf("%s/c%d/%d", p.tenant, p.index, p.seq)
}

func (p *proc) entity(r *prng.Rand) (entity string, n int) {
	n = 1 + r.Intn(p.w.cfg.EntityKeys)
	return fmt.Sprintf("%s%d", entityKeyPrefix, n), n
}

// newCommit draws a commit on stream: an enqueue or publish event, a put
// of the entity's status, and a put or delete of its cart — keys every
// tenant shares by name.
func (p *proc) newCommit(r *prng.Rand, kind properties.HistoryKind, stream string) *writeSpec {
	ent, n := p.entity(r)
	return p.newCommitOf(r, kind, stream, ent, n)
}

// newCommitOf is newCommit for entity ent, entity key number n.
func (p *proc) newCommitOf(r *prng.Rand, kind properties.HistoryKind, stream, ent string, n int) *writeSpec {
	tag := p.tag()
	payload := []byte(fmt.Sprintf(`{"event":%q,"entity":%q}`, tag, ent))
	status := []byte(fmt.Sprintf(`{"status":%q}`, tag))
	cart := fmt.Sprintf("%s%d", cartKeyPrefix, n)
	ws := &writeSpec{kind: kind, stream: stream, entity: ent}
	ws.rec.Payload = payload
	if r.Intn(2) == 0 {
		ws.ops = append(ws.ops, client.Enqueue(stream, payload))
		ws.rec.Event = felix.EventEnqueue
	} else {
		ws.ops = append(ws.ops, client.Publish(stream, payload))
		ws.rec.Event = felix.EventPublish
	}
	ws.ops = append(ws.ops, client.Put(stream, ent, status))
	ws.rec.Ops = append(ws.rec.Ops, felix.StateOp{Kind: felix.OpPut, Key: ent, Value: status})
	if r.Intn(3) == 0 {
		ws.ops = append(ws.ops, client.Delete(stream, cart))
		ws.rec.Ops = append(ws.rec.Ops, felix.StateOp{Kind: felix.OpDelete, Key: cart})
	} else {
		items := []byte(fmt.Sprintf(`{"items":%d,"by":%q}`, 1+r.Intn(9), tag))
		ws.ops = append(ws.ops, client.Put(stream, cart, items))
		ws.rec.Ops = append(ws.rec.Ops, felix.StateOp{Kind: felix.OpPut, Key: cart, Value: items})
	}
	return ws
}

// AuditStream is the second stream a cross-stream commit names: the
// client must refuse it (NotOnOwningShard) before sending anything.
const AuditStream = "order-audit"

// newCrossStreamCommit draws a commit that also puts a key on another
// stream — a mistake the client refuses before sending; the history
// records it failed and not sent.
func (p *proc) newCrossStreamCommit(r *prng.Rand) *writeSpec {
	ws := p.newCommit(r, properties.HistoryCommit, p.stream(r))
	audit := []byte(fmt.Sprintf(`{"audit":%q}`, ws.rec.Payload))
	ws.ops = append(ws.ops, client.Put(AuditStream, ws.entity, audit))
	ws.rec.Ops = append(ws.rec.Ops, felix.StateOp{Kind: felix.OpPut, Key: ws.entity, Value: audit})
	return ws
}

// newEvent draws a publish, publish_if or enqueue routed by an entity key.
func (p *proc) newEvent(r *prng.Rand, kind properties.HistoryKind) *writeSpec {
	ent, _ := p.entity(r)
	return p.newEventOf(kind, p.stream(r), ent)
}

// newEventOf is newEvent on stream for entity ent.
func (p *proc) newEventOf(kind properties.HistoryKind, stream, ent string) *writeSpec {
	payload := []byte(fmt.Sprintf(`{"event":%q,"entity":%q}`, p.tag(), ent))
	ev := felix.EventPublish
	if kind == properties.HistoryEnqueue {
		ev = felix.EventEnqueue
	}
	return &writeSpec{kind: kind, stream: stream, entity: ent, payload: payload,
		rec: felix.Record{Event: ev, Payload: payload}}
}

// stream draws one of the workload's streams.
func (p *proc) stream(r *prng.Rand) string {
	if len(p.w.cfg.Streams) == 1 {
		return p.w.cfg.Streams[0]
	}
	return p.w.cfg.Streams[r.Intn(len(p.w.cfg.Streams))]
}

// scopeOf is the scope entity routes to in stream, for this client's
// tenant, by the properties' statement of the routing function (not the
// client's, which it judges). The config guarantees at least one shard.
func (p *proc) scopeOf(stream, entity string) felix.Scope {
	shard, err := properties.RouteShard([]byte(entity), p.w.cfg.shardsOf(stream))
	if err != nil {
		panic(fmt.Sprintf("workload: a validated config has 0 shards: %v", err))
	}
	return felix.Scope{Tenant: p.tenant, Namespace: p.w.cfg.Namespace, Stream: stream, Shard: shard}
}

// shardScope draws one shard of one stream for this client's tenant.
func (p *proc) shardScope(r *prng.Rand) felix.Scope {
	return felix.Scope{Tenant: p.tenant, Namespace: p.w.cfg.Namespace, Stream: p.stream(r), Shard: uint32(r.Intn(int(p.w.cfg.Shards)))}
}

// begin records an invocation; it returns -1 (and invokes nothing) when
// the history is full or the plan skips the slot being drawn.
func (p *proc) begin(op properties.HistoryOp, now int64) int {
	if p.slots.skipping {
		p.slots.skipped++
		return -1
	}
	op.Client = p.index
	i := p.w.rec.invoke(op, now)
	if i >= 0 {
		p.open++
	}
	return i
}

// finish records a completion and returns the recorded op for its results.
func (p *proc) finish(i int, err error) *properties.HistoryOp {
	p.open--
	out, msg := classify(err)
	op := p.w.rec.complete(i, p.env.NowNs(), out, msg)
	op.NotSent = errors.Is(err, client.ErrNotSent)
	return op
}

// classify maps a call's error to its outcome: nil is ok; a write the
// client cannot vouch for (any sent write but one refused for every copy
// of it, see client.CallError.Unknown), or any call that timed out, is
// unknown; everything else certainly had no effect.
func classify(err error) (properties.HistoryOutcome, string) {
	switch {
	case err == nil:
		return properties.OutcomeOK, ""
	case errors.Is(err, client.ErrUnknownOutcome), errors.Is(err, client.ErrTimeout):
		return properties.OutcomeUnknown, err.Error()
	}
	return properties.OutcomeFailed, err.Error()
}

// sawTail notes that scope's next offset is at least next.
func (p *proc) sawTail(s felix.Scope, next uint64) {
	p.tails[s] = max(p.tails[s], next)
}

// learnTail sets scope's next offset to a refusal's true tail.
func (p *proc) learnTail(s felix.Scope, tail uint64) { p.tails[s] = tail }
