package workload

import (
	"errors"
	"fmt"

	"github.com/felixsim/felixsim/client"
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/prng"
)

// stateGet reads an entity's status or its cart, keys both tenants share.
func (p *proc) stateGet(now int64, r *prng.Rand) {
	ent, n := p.entity(r)
	key := ent
	if r.Intn(2) == 0 {
		key = fmt.Sprintf("%s%d", cartKeyPrefix, n)
	}
	stream := p.stream(r)
	sc := p.scopeOf(stream, ent)
	i := p.begin(properties.HistoryOp{Kind: properties.HistoryStateGet, Scope: sc, EntityKey: ent, Key: key}, now)
	if i < 0 {
		return
	}
	pd, err := p.cl.StateGet(now, p.tenant, p.w.cfg.Namespace, stream, []byte(ent), key)
	if err != nil {
		p.finish(i, err)
		return
	}
	pd.OnDone(func(st client.State, err error) {
		done := p.finish(i, err)
		if err == nil {
			done.Found, done.Value, done.Version = st.Found, cloneNonEmpty(st.Value), st.Version
		}
	})
}

// subscribe reads the next entries of one shard from this client's cursor.
func (p *proc) subscribe(now int64, r *prng.Rand) {
	sc := p.shardScope(r)
	from := p.cursors[sc]
	i := p.begin(properties.HistoryOp{Kind: properties.HistorySubscribe, Scope: sc, FromOffset: from, MaxEntries: SubscribeMaxDefault}, now)
	if i < 0 {
		return
	}
	pd, err := p.cl.Subscribe(now, sc, from, SubscribeMaxDefault)
	if err != nil {
		p.finish(i, err)
		return
	}
	pd.OnDone(func(es []felix.Entry, err error) {
		done := p.finish(i, err)
		if err == nil {
			done.Entries = historyEntriesOf(es)
			if len(es) > 0 {
				next := es[len(es)-1].Offset + 1
				p.cursors[sc] = max(p.cursors[sc], next)
				p.sawTail(sc, next)
			}
			return
		}
		var ce *client.CallError
		if errors.As(err, &ce) && errors.Is(err, client.ErrBeforeWindow) && ce.Broker != nil {
			p.cursors[sc] = max(p.cursors[sc], ce.Broker.WindowStart)
		}
	})
}

// groupFetch takes work for the shared consumer group and acks every
// entry it was handed.
func (p *proc) groupFetch(now int64, r *prng.Rand) {
	sc := p.shardScope(r)
	group := GroupNameDefault
	i := p.begin(properties.HistoryOp{Kind: properties.HistoryGroupFetch, Scope: sc, Group: group, MaxEntries: FetchMaxDefault, LeaseNs: LeaseNsDefault}, now)
	if i < 0 {
		return
	}
	pd, err := p.cl.GroupFetch(now, sc, group, FetchMaxDefault, LeaseNsDefault)
	if err != nil {
		p.finish(i, err)
		return
	}
	p.w.rec.writes.sent(i, pd)
	pd.OnDone(func(d client.Deliveries, err error) {
		done := p.finish(i, err)
		if err != nil {
			return
		}
		done.Entries, done.LeaseExpiryNs = historyEntriesOf(d.Entries), int64(d.LeaseExpiryNs)
		offsets := make([]uint64, len(d.Entries))
		for j := range d.Entries {
			offsets[j] = d.Entries[j].Offset
		}
		for _, off := range offsets {
			p.groupAck(p.env.NowNs(), sc, group, off)
		}
	})
}

// groupAck reports one delivered record done.
func (p *proc) groupAck(now int64, sc felix.Scope, group string, offset uint64) {
	i := p.begin(properties.HistoryOp{Kind: properties.HistoryGroupAck, Scope: sc, Group: group, AckOffset: offset}, now)
	if i < 0 {
		return
	}
	pd, err := p.cl.GroupAck(now, sc, group, offset)
	if err != nil {
		p.finish(i, err)
		return
	}
	p.w.rec.writes.sent(i, pd)
	pd.OnDone(func(_ struct{}, err error) { p.finish(i, err) })
}
