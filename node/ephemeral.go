package node

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/wire"
)

// An ephemeral stream has no log: its shard's leader hands each publish to
// the subscribers live at that moment and keeps nothing. Nothing goes
// through raft or the store, so a restart or a failover loses only what
// was never promised (a publish is answered Acked, with no offset to
// hold the stream to). Every operation that needs a log (commit,
// commit_if, publish_if, enqueue, state reads, consumer groups) is refused
// with CodeEphemeralStream before anything is written.

// Caps on ephemeral delivery.
const (
	// EphemeralSubscribersMax caps the live subscribers of one ephemeral
	// scope; a subscribe read past it is refused with Unavailable.
	EphemeralSubscribersMax = 64
	// EphemeralQueueLenMax caps the publishes waiting for one subscriber;
	// when full, the oldest is dropped (an ephemeral stream promises no
	// replay, and a subscriber that falls this far behind has missed it).
	EphemeralQueueLenMax = 1024
	// EphemeralIdleTicks is how long a subscriber stays live without
	// reading; after it, the subscriber is dropped and misses later
	// publishes until it reads again.
	EphemeralIdleTicks = 100
)

// ephemeralSub is one live subscriber of an ephemeral scope: a client
// endpoint, when it last read, and the publishes waiting for it.
type ephemeralSub struct {
	client       uint64
	lastReadTick uint64
	queue        []felix.Entry
}

// ephemeralScope is one ephemeral scope on the node leading its group.
// Offsets number the publishes of this leadership only.
type ephemeralScope struct {
	next uint64
	subs []ephemeralSub
	// keepQueue is the EphemeralReadKeepsQueue defect: a read leaves its
	// queue as it was.
	keepQueue bool
}

// isEphemeral reports whether g is an ephemeral stream's shard.
func (g *raftGroup) isEphemeral() bool {
	return g.spec != nil && g.spec.Kind == statemachine.StreamEphemeral
}

// serveEphemeral serves a request on an ephemeral stream's shard (this node
// leads it): a publish reaches the live subscribers, a subscribe read
// registers or drains its subscriber, everything else is refused.
func (n *Node) serveEphemeral(client uint64, req *wire.Request, g *raftGroup) wire.AnswerBody {
	if g.ephemeral == nil {
		g.ephemeral = map[string]*ephemeralScope{}
	}
	key := n.ephemeralKey(req.Scope.Tenant)
	es := g.ephemeral[key]
	if es == nil {
		es = n.newEphemeralScope()
		g.ephemeral[key] = es
	}
	es.expire(n.ticks)
	switch body := req.Body.(type) {
	case *wire.Publish:
		es.publish(body.Record)
		return &wire.Acked{}
	case *wire.SubscribeRead:
		return n.liveRead(es, client, int(body.MaxEntries))
	}
	if a := n.commitToSubscribers(es, req); a != nil {
		return a
	}
	return &wire.Error{Code: wire.CodeEphemeralStream, Message: truncate(fmt.Sprintf(
		"%s refused on ephemeral stream %s/%s: it has no log to hold it; nothing was written", kindName(req.Body), g.spec.Namespace, g.spec.Stream))}
}

// publish queues rec for every live subscriber.
func (es *ephemeralScope) publish(rec felix.Record) {
	e := felix.Entry{Offset: es.next, Record: rec}
	es.next++
	for i := range es.subs {
		s := &es.subs[i]
		if len(s.queue) == EphemeralQueueLenMax {
			s.queue = s.queue[1:]
		}
		s.queue = append(s.queue, e)
	}
}

// read drains up to entriesMax of client's queue, registering it live if
// it was not.
func (es *ephemeralScope) read(client, nowTick uint64, entriesMax int) wire.AnswerBody {
	for i := range es.subs {
		s := &es.subs[i]
		if s.client != client {
			continue
		}
		s.lastReadTick = nowTick
		k := min(entriesMax, len(s.queue))
		out := append([]felix.Entry(nil), s.queue[:k]...)
		es.drain(s, k)
		return &wire.Entries{Entries: out}
	}
	if len(es.subs) >= EphemeralSubscribersMax {
		return &wire.Error{Code: wire.CodeUnavailable, Message: fmt.Sprintf("ephemeral scope has %d live subscribers, the cap", len(es.subs))}
	}
	es.subs = append(es.subs, ephemeralSub{client: client, lastReadTick: nowTick})
	return &wire.Entries{}
}

// queued is how many publishes wait for client (0 when it is not live).
func (es *ephemeralScope) queued(client uint64) int {
	for i := range es.subs {
		if es.subs[i].client == client {
			return len(es.subs[i].queue)
		}
	}
	return 0
}

// expire drops subscribers idle for EphemeralIdleTicks.
func (es *ephemeralScope) expire(nowTick uint64) {
	kept := es.subs[:0]
	for _, s := range es.subs {
		if nowTick-s.lastReadTick < EphemeralIdleTicks {
			kept = append(kept, s)
		}
	}
	clear(es.subs[len(kept):])
	es.subs = kept
}
