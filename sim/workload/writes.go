package workload

import (
	"errors"

	"github.com/felixsim/felixsim/client"
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
)

// write invokes ws (retryOf links a re-send to the op it repeats) and
// records its completion; an unconditional write whose outcome is unknown
// may be queued for a re-send, which may land a second copy, and one that
// certainly failed is queued for a re-send always (it wrote nothing, so
// the re-send is its only copy).
func (p *proc) write(now int64, ws *writeSpec, retryOf uint64) {
	sc := p.scopeOfWrite(ws)
	rec := ws.rec
	if ws.kind.IsConditional() {
		rec.Conditional, rec.ExpectedOffset = true, p.tails[sc]
	}
	op := properties.HistoryOp{RetryOf: retryOf, Kind: ws.kind, Scope: sc, EntityKey: ws.entity, Record: &rec}
	i := p.begin(op, now)
	if i < 0 {
		return
	}
	if ws.kind.IsConditional() {
		p.sendConditional(now, i, sc, ws, rec.ExpectedOffset)
		return
	}
	pd, err := p.sendUnconditional(now, ws)
	if err != nil {
		p.finish(i, err)
		return
	}
	p.w.rec.writes.sent(i, pd)
	pd.OnDone(func(rc client.Receipt, err error) {
		done := p.finish(i, err)
		switch done.Outcome {
		case properties.OutcomeOK:
			done.Offset = rc.Offset
			p.sawTail(sc, rc.Offset+1)
		case properties.OutcomeUnknown:
			if !copyRefused(err) {
				p.maybeRetry(done.ID, ws)
			}
		case properties.OutcomeFailed:
			p.queueRetry(done.ID, ws)
		}
	})
}

func (p *proc) sendUnconditional(now int64, ws *writeSpec) (*client.Pending[client.Receipt], error) {
	cfg := &p.w.cfg
	switch ws.kind {
	case properties.HistoryCommit:
		return p.cl.Commit(now, p.tenantOf(ws), cfg.Namespace, []byte(ws.entity), ws.ops)
	case properties.HistoryPublish:
		return p.cl.Publish(now, p.tenantOf(ws), cfg.Namespace, ws.stream, []byte(ws.entity), ws.payload)
	case properties.HistoryEnqueue:
		return p.cl.Enqueue(now, p.tenantOf(ws), cfg.Namespace, ws.stream, []byte(ws.entity), ws.payload)
	}
	panic("workload: sendUnconditional of " + ws.kind.String())
}

func (p *proc) sendConditional(now int64, i int, sc felix.Scope, ws *writeSpec, expected uint64) {
	cfg := &p.w.cfg
	var pd *client.Pending[client.ConditionalWrite]
	var err error
	if ws.kind == properties.HistoryCommitIf {
		pd, err = p.cl.CommitIf(now, p.tenantOf(ws), cfg.Namespace, []byte(ws.entity), ws.ops, expected)
	} else {
		pd, err = p.cl.PublishIf(now, p.tenantOf(ws), cfg.Namespace, ws.stream, []byte(ws.entity), ws.payload, expected)
	}
	if err != nil {
		p.finish(i, err)
		return
	}
	p.w.rec.writes.sent(i, pd)
	pd.OnDone(func(cw client.ConditionalWrite, err error) {
		done := p.finish(i, err)
		switch a := cw.(type) {
		case client.Written:
			done.Offset = a.Offset
			p.sawTail(sc, a.Offset+1)
		case client.Refused:
			done.Outcome, done.Tail = properties.OutcomeRefused, a.Tail
			p.learnTail(sc, a.Tail)
		}
	})
}

// copyRefused reports whether a broker refused the copy of the write the
// call last sent (NotLeader after the client's redirects ran out,
// Unavailable, ...). Such a write is recorded unknown — an earlier or
// duplicated copy may have landed — but the workload re-sends only writes
// whose answer was lost or that a broker could not resolve (timeouts,
// Timeout, Internal): a refused one already went through the client's
// redirects, and re-sending it would only add load to a cluster in flux.
func copyRefused(err error) bool {
	var ce *client.CallError
	return errors.As(err, &ce) && ce.CopyRefused
}

// maybeRetry queues a re-send of an unknown write with the configured chance.
func (p *proc) maybeRetry(of uint64, ws *writeSpec) {
	if p.w.cfg.RetryUnknownPct < 0 || p.draws.retries.Intn(100) >= p.w.cfg.RetryUnknownPct {
		return
	}
	p.queueRetry(of, ws)
}

// queueRetry queues a re-send of op of's write, unless the queue is full.
func (p *proc) queueRetry(of uint64, ws *writeSpec) {
	if len(p.retries) >= RetriesQueuedMax {
		return
	}
	p.retries = append(p.retries, retry{of: of, ws: ws})
}

// sendRetry re-sends the oldest queued write as a new operation linked to
// the one it repeats.
func (p *proc) sendRetry(now int64) {
	r := p.retries[0]
	p.retries = p.retries[1:]
	p.w.retries++
	p.write(now, r.ws, r.of)
}
