package cluster

import (
	"fmt"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/node"
)

// Stream administration as a plan's operator actions (world.StreamOperator):
// a streamdelete or streamcreate fault sets the administered stream's
// wanted state, and the operator steps towards it every OperatorStepNs.
// The operator judges the stream's state by the most advanced incarnation
// any running broker has applied (a broker's applied metadata is a
// committed prefix; a leader cut off or just elected may lag, and its
// view alone would make the operator act on a state long gone). While
// that is not the wanted state, the metadata group's leader proposes the
// change (again after StreamProposeRetryNs if it has not applied). The
// change is done once every shard of the stream has, on some running
// broker, applied that incarnation (so it is committed there: every later
// read of the shard sees it). A later fault supersedes a change still
// pending.

// StreamProposeRetryNs is how long the operator waits for a proposed
// stream change to apply before proposing it again (a proposal may be
// lost with a leadership change). Every proposal names the generation it
// acts on (node.AdminRequest.Generation), so a duplicate, or one left
// over from a superseded change, is refused rather than acting on a
// later incarnation.
const StreamProposeRetryNs = 1_000_000_000

// StreamChangesMax caps the stream changes a run records; later ones are
// carried out and counted but not listed.
const StreamChangesMax = 64

// StreamChange is one operator delete or create of the administered stream.
type StreamChange struct {
	Deleted bool  `json:"deleted"`
	AtNs    int64 `json:"at_ns"`
	// DoneNs is when every shard had applied it (0: pending or superseded).
	DoneNs int64 `json:"done_ns"`
	// Generation is the stream's generation when done.
	Generation uint32 `json:"generation,omitempty"`
	// Proposed is set when the operator proposed the change (the stream
	// was not already in the wanted state when it looked) and it ended in
	// the successor of the incarnation it proposed it from.
	Proposed bool `json:"proposed,omitempty"`
}

// streamAdmin is the operator's pending stream change.
type streamAdmin struct {
	want       bool // deleted
	pending    bool
	armed      bool
	proposedNs int64 // 0: not proposed for this change
	effect     func()
	// from is the incarnation the operator saw when it first proposed
	// the pending change.
	from    node.StreamIncarnation
	changes []StreamChange
	// listed reports whether the pending change is changes' last entry.
	listed bool
	// unlistedFromNs is when the first change past StreamChangesMax was
	// asked (0: none).
	unlistedFromNs int64
}

// StreamChanges lists the administered stream's changes in order.
func (c *Cluster) StreamChanges() []StreamChange {
	return append([]StreamChange(nil), c.stream.changes...)
}

// StreamChangesUnlistedFromNs is when the operator asked the first change
// StreamChanges does not list (false: it lists every one): a check must
// not judge anything after it against the list's boundaries.
func (c *Cluster) StreamChangesUnlistedFromNs() (int64, bool) {
	return c.stream.unlistedFromNs, c.stream.unlistedFromNs != 0
}

// StreamAdmin implements world.StreamOperator on Config.AdminStream (a
// cluster without one ignores it).
func (c *Cluster) StreamAdmin(deleted bool, effect func()) {
	if c.cfg.AdminStream == "" {
		return
	}
	s := &c.stream
	s.want, s.pending, s.proposedNs, s.effect = deleted, true, 0, effect
	s.listed = len(s.changes) < StreamChangesMax
	if s.listed {
		s.changes = append(s.changes, StreamChange{Deleted: deleted, AtNs: c.World.NowNs()})
	} else if s.unlistedFromNs == 0 {
		s.unlistedFromNs = max(c.World.NowNs(), 1)
	}
	if !s.armed {
		s.armed = true
		c.World.At(c.World.NowNs()+OperatorStepNs, 0, c.streamStep)
	}
}

// streamStep takes the operator's next step towards the wanted state of
// the administered stream, re-arming until it is done.
func (c *Cluster) streamStep() {
	s := &c.stream
	s.armed = false
	if !s.pending {
		return
	}
	if done, inc := c.streamStepOnce(); done {
		c.streamDone(inc)
		return
	}
	s.armed = true
	c.World.At(c.World.NowNs()+OperatorStepNs, 0, c.streamStep)
}

// streamStepOnce proposes the change when the metadata does not hold it
// yet and reports whether every shard applied the metadata's incarnation.
func (c *Cluster) streamStepOnce() (bool, node.StreamIncarnation) {
	s := &c.stream
	inc, ok := c.streamIncarnation()
	if !ok {
		return false, inc
	}
	if inc.Deleted != s.want {
		c.streamPropose(inc)
		return false, inc
	}
	for _, spec := range c.cfg.Streams {
		if spec.Namespace != c.cfg.AdminNamespace || spec.Stream != c.cfg.AdminStream {
			continue
		}
		for shard := uint32(0); shard < spec.Shards; shard++ {
			if !c.someBrokerApplied(c.RaftGroupOf(spec.Namespace, spec.Stream, shard), inc) {
				return false, inc
			}
		}
	}
	return true, inc
}

// streamIncarnation is the most advanced incarnation of the administered
// stream any running broker's metadata has applied (false: none runs).
func (c *Cluster) streamIncarnation() (node.StreamIncarnation, bool) {
	var best node.StreamIncarnation
	found := false
	for i := 0; i < c.cfg.Brokers; i++ {
		n := c.Node(c.IdentityOf(i))
		if n == nil {
			continue
		}
		md := n.Metadata()
		inc, ok := md.IncarnationOf(c.cfg.AdminNamespace, c.cfg.AdminStream)
		if !ok {
			panic(fmt.Sprintf("cluster: administered stream %s/%s is not in the topology", c.cfg.AdminNamespace, c.cfg.AdminStream))
		}
		if !found || inc.After(best) {
			best, found = inc, true
		}
	}
	return best, found
}

// someBrokerApplied reports whether a running broker's shard group group
// has applied inc.
func (c *Cluster) someBrokerApplied(group uint64, inc node.StreamIncarnation) bool {
	for i := 0; i < c.cfg.Brokers; i++ {
		if n := c.Node(c.IdentityOf(i)); n != nil {
			if got, _ := n.Incarnation(group); got == inc {
				return true
			}
		}
	}
	return false
}

// streamPropose has the metadata group's leader propose the pending
// change from inc, unless a proposal is younger than StreamProposeRetryNs.
func (c *Cluster) streamPropose(inc node.StreamIncarnation) {
	s := &c.stream
	now := c.World.NowNs()
	if s.proposedNs != 0 && now-s.proposedNs < StreamProposeRetryNs {
		return
	}
	lead, ok := c.Leader(node.MetaGroup)
	if !ok {
		return
	}
	kind := node.AdminStreamCreate
	if s.want {
		kind = node.AdminStreamDelete
	}
	req := &node.AdminRequest{Kind: kind, Namespace: c.cfg.AdminNamespace, Stream: c.cfg.AdminStream, Generation: inc.Generation}
	if err := c.Node(lead).ProposeAdmin(req); err != nil {
		return
	}
	if s.proposedNs == 0 {
		s.from = inc
	}
	s.proposedNs = now
	c.brokers[SimID(lead)].inputTaken()
}

// streamDone closes the pending change: it records when it was done and,
// when the operator's proposal made it (not a state already held), counts
// its effect.
func (c *Cluster) streamDone(inc node.StreamIncarnation) {
	s := &c.stream
	s.pending = false
	if s.listed {
		ch := &s.changes[len(s.changes)-1]
		ch.DoneNs, ch.Generation, ch.Proposed = c.World.NowNs(), inc.Generation, s.proposedNs != 0 && inc == s.from.Next()
	}
	if s.proposedNs == 0 {
		return
	}
	s.effect()
	if inc.Deleted {
		c.cfg.Counts.Add(coverage.StreamDeleted)
	} else {
		c.cfg.Counts.Add(coverage.StreamRecreated)
	}
}
