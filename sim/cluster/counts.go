package cluster

// This file is what the cluster counts into the run's coverage
// (Config.Counts): what a broker's store found when it reopened after a
// crash, and requests that reached a deposed leader. The cluster sees both
// sides of the second (the broker a request reaches, and what the other
// brokers acknowledged), so the node needs no bookkeeping for it.

import (
	"slices"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/logstore"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/wire"
)

// WritesNotedMax caps the writes one broker incarnation remembers between
// request and answer, to learn which raft group an acknowledgement belongs to.
// Overflow policy: a further write is not noted, and its acknowledgement
// is not counted (counting is all this serves).
const WritesNotedMax = 4096

// writeKey names one request: the client's sim id and its request id.
type writeKey struct{ client, id uint64 }

// countRecovery counts what opening the store found at its tail.
func (c *Cluster) countRecovery(r logstore.Recovery) {
	switch r.Kind {
	case logstore.RecoveryPartial:
		c.cfg.Counts.Add(coverage.LogstoreRecoverPartial)
	case logstore.RecoveryTorn:
		c.cfg.Counts.Add(coverage.LogstoreRecoverTorn)
	case logstore.RecoverySealRestored:
		c.cfg.Counts.Add(coverage.LogstoreRecoverSealRestored)
	}
}

// noteRequest counts a request reaching a deposed leader (this broker
// leads the request's raft group in a term older than one in which another
// broker acknowledged a write there) and notes a write's raft group for its
// answer.
func (b *broker) noteRequest(from int, req *wire.Request) {
	c := b.c
	if c.cfg.Counts == nil {
		return
	}
	g := c.RaftGroupOf(req.Scope.Namespace, req.Scope.Stream, req.Scope.Shard)
	if g == 0 || g >= uint64(len(c.ackedTerm)) {
		return
	}
	if term, leads := b.n.LeaderTerm(g); leads && term < c.ackedTerm[g] {
		c.cfg.Counts.Add(coverage.ClientRequestToDeposedLeader)
		if _, read := req.Body.(*wire.StateGet); read {
			c.cfg.Counts.Add(coverage.ClientReadToDeposedLeader)
		}
	}
	switch req.Body.(type) {
	case *wire.Publish, *wire.PublishIf, *wire.Enqueue, *wire.Commit, *wire.CommitIf:
		if len(b.writes) < WritesNotedMax {
			b.writes[writeKey{uint64(from), req.ID}] = g
		}
	}
}

// noteAnswer raises the answered write's raft group's acknowledged term to this
// broker's, when the answer says written and this broker leads the raft group.
func (b *broker) noteAnswer(to uint64, a *wire.Answer) {
	k := writeKey{to, a.ID}
	g, ok := b.writes[k]
	if !ok {
		return
	}
	delete(b.writes, k)
	if _, written := a.Body.(*wire.Written); !written || b.n == nil {
		return
	}
	if term, leads := b.n.LeaderTerm(g); leads && term > b.c.ackedTerm[g] {
		b.c.ackedTerm[g] = term
	}
}

// onPath is every broker's node.Config.OnPath: it counts the node's rare
// paths under their coverage points.
func (c *Cluster) onPath(p node.Path) {
	switch p {
	case node.PathSnapshotSent:
		c.cfg.Counts.Add(coverage.SnapshotSent)
	case node.PathSnapshotInstalled:
		c.cfg.Counts.Add(coverage.SnapshotInstalled)
	case node.PathMembershipChange:
		c.cfg.Counts.Add(coverage.MembershipChange)
	case node.PathRetentionHeld:
		c.cfg.Counts.Add(coverage.RetentionHeldByGroup)
	case node.PathSeqOfEarlierIncarnation:
		c.cfg.Counts.Add(coverage.PendingSeqOfEarlierIncarnation)
	}
}

// countPromotions counts every learner the operator saw in group g's
// applied membership at its last step that st now lists as a voter
// (coverage.LearnerPromoted), and remembers st's learners.
func (c *Cluster) countPromotions(g uint64, st *node.MembershipStatus) {
	for uint64(len(c.learnersSeen)) <= g {
		c.learnersSeen = append(c.learnersSeen, nil)
	}
	for _, l := range c.learnersSeen[g] {
		if slices.Contains(st.Voters, l) {
			c.cfg.Counts.Add(coverage.LearnerPromoted)
		}
	}
	c.learnersSeen[g] = append(c.learnersSeen[g][:0], st.Learners...)
}
