package runner

import (
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/world"
)

// leaderWatch keeps, from the brokers' abstract trace, the moments the
// ephemeral streams' leadership may have moved (a Promote step in one of
// their shard groups, a broker's Restart): an ephemeral shard's live
// queues are its leader's memory, lost when it steps down or restarts, so
// EphemeralLiveComplete judges only reads its leader answered without a
// break. It only reads the steps.
//
// Invariant: len(changes) <= leaderChangesMax; past it none are kept and
// cut is set (the check then judges nothing).
type leaderWatch struct {
	c *cluster.Cluster
	// shards maps a watched raft group to its stream shard.
	shards  map[uint64]felix.Scope
	changes []properties.LeaderChange
	cut     bool
}

// leaderChangesMax caps the changes a leaderWatch keeps.
const leaderChangesMax = 1 << 16

// watch starts keeping the leadership changes of c's ephemeral streams.
func (w *leaderWatch) watch(c *cluster.Cluster) {
	w.c, w.shards = c, map[uint64]felix.Scope{}
	for _, s := range c.Config().Streams {
		if !cluster.IsEphemeral(s) {
			continue
		}
		for sh := uint32(0); sh < s.Shards; sh++ {
			w.shards[c.RaftGroupOf(s.Namespace, s.Stream, sh)] = felix.Scope{Namespace: s.Namespace, Stream: s.Stream, Shard: sh}
		}
	}
}

// Step keeps a Promote or Restart step of a watched group.
func (w *leaderWatch) Step(s *modeltrace.Step) {
	if w.c == nil || s.Kind != modeltrace.Promote && s.Kind != modeltrace.Restart {
		return
	}
	shard, ok := w.shards[s.Group]
	if !ok {
		return
	}
	if len(w.changes) >= leaderChangesMax {
		w.cut = true
		return
	}
	w.changes = append(w.changes, properties.LeaderChange{Shard: shard, AtNs: w.c.World.NowNs(), Broker: slotOf(s.Broker), Restart: s.Kind == modeltrace.Restart})
}

// check judges h's live reads against the changes kept.
func (w *leaderWatch) check(h *properties.History) (int, error) {
	if w.c == nil || w.cut {
		return 0, nil
	}
	return properties.HistoryLiveReadsComplete(h, w.changes, liveIdleBoundNs(w.c.Config().TickNs))
}

// liveIdleBoundNs is the longest gap between two reads of a live
// subscriber that surely keeps it live: node.EphemeralIdleTicks ticks of
// tickNs on the fastest clock a fault may give a broker (world.DriftPpmMax),
// less two ticks for the early ones clock jumps may fire.
func liveIdleBoundNs(tickNs int64) int64 {
	return node.EphemeralIdleTicks*tickNs*1_000_000/(1_000_000+world.DriftPpmMax) - 2*tickNs
}
