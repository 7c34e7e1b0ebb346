package properties

import (
	"slices"

	"github.com/felixsim/felixsim/felix"
)

// The ephemeral stream in the contract model (docs/atomic-commit.md,
// "Ephemeral streams and the feature gate"; node/ephemeral.go states the
// queue's caps): it keeps no log, so it refuses every record with state
// operations and every call that needs a log (EphemeralStream), and its
// leader hands each plain publish to the subscribers live at that moment.
// A live read registers its subscriber (answering nothing: it was live
// nowhere before) or drains, up to its entry cap, what was queued for it
// since its last read, oldest first. Nothing else empties a queue but the
// subscriber going idle (LiveExpire) or the leadership moving (LiveReset),
// which the model takes as steps, and a full queue dropping its oldest.
// An empty answer to a registered subscriber therefore means it is caught
// up: nothing was published to it since its last read.

// liveQueue is one live subscriber and the publishes waiting for it.
type liveQueue struct {
	sub   int
	queue []ViewEntry
}

// LiveQueueLenMax caps one subscriber's queue in the model; the oldest is
// dropped past it (node.EphemeralQueueLenMax states the broker's).
const LiveQueueLenMax = 1024

// livePublish queues rec, at the stream's next live offset, for every
// live subscriber.
func (s *ContractScope) livePublish(rec *felix.Record) {
	e := ViewEntryOf(s.liveNext, rec)
	s.liveNext++
	for i := range s.live {
		q := &s.live[i]
		if len(q.queue) == LiveQueueLenMax {
			q.queue = q.queue[1:]
		}
		q.queue = append(q.queue, e)
	}
}

// LiveRead answers subscriber sub's live read of at most entriesMax
// records: it registers sub (an empty answer) or drains its queue.
func (s *ContractScope) LiveRead(sub, entriesMax int) ContractAnswer {
	if !s.cfg.Ephemeral {
		return ContractAnswer{Answer: AnswerInvalidRequest}
	}
	i := slices.IndexFunc(s.live, func(q liveQueue) bool { return q.sub == sub })
	if i < 0 {
		s.live = append(s.live, liveQueue{sub: sub})
		return ContractAnswer{Answer: AnswerEntries}
	}
	q := &s.live[i]
	k := min(entriesMax, len(q.queue))
	a := ContractAnswer{Answer: AnswerEntries, Entries: slices.Clone(q.queue[:k])}
	q.queue = q.queue[k:]
	return a
}

// LiveQueued is how many publishes wait for subscriber sub (0 when it is
// not live).
func (s *ContractScope) LiveQueued(sub int) int {
	if i := slices.IndexFunc(s.live, func(q liveQueue) bool { return q.sub == sub }); i >= 0 {
		return len(s.live[i].queue)
	}
	return 0
}

// LiveExpire drops subscriber sub, gone idle: it misses what comes next
// until it reads again.
func (s *ContractScope) LiveExpire(sub int) {
	s.live = slices.DeleteFunc(s.live, func(q liveQueue) bool { return q.sub == sub })
}

// LiveReset drops every subscriber: the stream's leadership moved, and
// subscribers reconnect to the new leader.
func (s *ContractScope) LiveReset() { s.live = nil }
