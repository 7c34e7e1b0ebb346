package workload

import (
	"fmt"

	"github.com/felixsim/felixsim/client"
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/prng"
)

// The live stream (Config.LiveStream) is ephemeral: its shard's leader
// hands each publish to the subscribers live then and keeps nothing, and
// it refuses every commit. Clients read it as live subscribers (a read
// registers the client and drains what was queued for it since its last
// read), publish to it, and now and then send it a commit or commit_if,
// which must be refused with EphemeralStream and write nothing. The
// history records the reads and publishes as live_read and live_publish
// (neither reads nor writes a log), the commits as commits on the live
// stream's scope; properties' ephemeral checks judge them.

// LiveSlotsPct is the percentage of a client's slots that go to the
// live stream (with one: Config.LiveStream). Five in eight of them are
// live reads, so a client reads about every 360 ms, within the broker's
// idle limit (node.EphemeralIdleTicks), and mostly stays live. Live
// traffic moves the brokers' timing: with 15% of the slots (the quorum
// streams' load kept) keep-stale-suffix's catch plan caught it on 136 of
// seeds 1..300, with 8% on 142, before the live stream on 157
// (docs/performance.md).
const LiveSlotsPct = 8

// invokeLive invokes one operation on the live stream, drawn with r: a
// live read in five of eight, a publish in two, else a commit or
// commit_if. Without a live stream it reads state instead.
func (p *proc) invokeLive(now int64, r *prng.Rand) {
	if p.w.cfg.LiveStream == "" {
		p.stateGet(now, r)
		return
	}
	switch n := r.Intn(LiveSlotsPct); {
	case n < 5:
		p.liveRead(now, r)
	case n < 7:
		p.livePublish(now, r)
	default:
		kind := properties.HistoryCommit
		if r.Intn(2) == 0 {
			kind = properties.HistoryCommitIf
		}
		p.write(now, p.newCommit(r, kind, p.w.cfg.LiveStream), 0)
	}
}

// liveRead reads one shard of the live stream as a live subscriber.
func (p *proc) liveRead(now int64, r *prng.Rand) {
	cfg := &p.w.cfg
	sc := felix.Scope{Tenant: p.tenant, Namespace: cfg.Namespace, Stream: cfg.LiveStream, Shard: uint32(r.Intn(int(cfg.LiveShards)))}
	i := p.begin(properties.HistoryOp{Kind: properties.HistoryLiveRead, Scope: sc, MaxEntries: SubscribeMaxDefault}, now)
	if i < 0 {
		return
	}
	pd, err := p.cl.Subscribe(now, sc, 0, SubscribeMaxDefault)
	if err != nil {
		p.finish(i, err)
		return
	}
	p.w.rec.writes.sent(i, pd)
	pd.OnDone(func(es []felix.Entry, err error) {
		if done := p.finish(i, err); err == nil {
			done.Entries = historyEntriesOf(es)
		}
	})
}

// livePublish publishes a fresh payload to the live stream, routed by an
// entity key; the history names its requests, whose delivered copies
// bound how often a subscriber may read it.
func (p *proc) livePublish(now int64, r *prng.Rand) {
	cfg := &p.w.cfg
	ent, _ := p.entity(r)
	payload := []byte(fmt.Sprintf(`{"live":%q,"entity":%q}`, p.tag(), ent))
	rec := felix.Record{Event: felix.EventPublish, Payload: payload}
	i := p.begin(properties.HistoryOp{Kind: properties.HistoryLivePublish, Scope: p.scopeOf(cfg.LiveStream, ent), EntityKey: ent, Record: &rec}, now)
	if i < 0 {
		return
	}
	pd, err := p.cl.Publish(now, p.tenant, cfg.Namespace, cfg.LiveStream, []byte(ent), payload)
	if err != nil {
		p.finish(i, err)
		return
	}
	p.w.rec.writes.sent(i, pd)
	pd.OnDone(func(_ client.Receipt, err error) { p.finish(i, err) })
}
