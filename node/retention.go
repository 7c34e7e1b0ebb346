package node

import (
	"fmt"

	"github.com/felixsim/felixsim/statemachine"
)

// Retention by age: a record older than its stream's RetainedAgeMaxNs is
// dropped through raft, never by a replica on its own. Every replica notes,
// on its own clock, marks "the records below offset N were applied by time
// T"; the group's leader proposes a retain command "drop below N" once a
// mark is older than the age limit, and every replica applies that command
// at the same log position (DropBefore). The age is thus the leader's
// measure, decided once and replicated: replicas never disagree on what was
// dropped. A replica that restarts or installs a snapshot starts its marks
// afresh (its retained records count as applied then): a new leader drops
// late, never early. Retention by count needs no command: the ring drops
// its oldest record at the append that overflows it, at the same log
// position on every replica.
//
// Retention never drops a record a live consumer group has not committed
// (the group's committed position is its oldest unacknowledged offset):
// a group left below the window could never fetch again, and its
// undelivered records would be gone without anyone being told. Felix's
// groups are work queues (the seeds' fulfilment hand-off), so the broker
// keeps the work and holds retention back instead: a retain command
// (by age or an operator's) drops below min(its offset, the scope's
// GroupsCommittedMin) as every replica applies it (the same group state
// at the same log position, so every replica clamps alike; a group
// created between the proposal and the apply is protected too), and
// retention by count refuses the write that would overflow a window
// whose oldest record a group still owes (statemachine.ErrWindowHeld,
// answered Unavailable). A group that stops acking therefore holds its
// scope's retention back: by age the log keeps growing up to its count
// bound, then writes to the scope are refused until the group moves.
// Retention never touches the outbox either: only the relay's confirmed
// trim deletes an outbox row (outbox.go).

// retentionMarksMax caps one scope's age marks; when full the oldest is
// dropped (retention then waits for a younger mark: it drops late, never
// early). Marks are taken every RetainedAgeMaxNs/retentionMarksPerAge, so
// a full ring spans about twice the age limit.
const (
	retentionMarksMax    = 64
	retentionMarksPerAge = 32
)

// ageMark says that the records below nextOffset were applied by atNs on
// this node's clock.
type ageMark struct {
	nextOffset uint64
	atNs       int64
}

// ageMarks is one scope's marks, oldest first, and the offset below which
// its records are known to be older than the age limit.
//
// Invariant: len(marks) <= retentionMarksMax; marks ascend in both fields.
type ageMarks struct {
	marks  []ageMark
	dropTo uint64
}

// note adds a mark for next at nowNs unless nothing was written since the
// last one or the clock went back.
func (a *ageMarks) note(next uint64, nowNs int64) {
	if k := len(a.marks); k > 0 && (a.marks[k-1].nextOffset >= next || a.marks[k-1].atNs > nowNs) {
		return
	}
	if len(a.marks) == retentionMarksMax {
		a.marks = append(a.marks[:0], a.marks[1:]...)
	}
	a.marks = append(a.marks, ageMark{nextOffset: next, atNs: nowNs})
}

// expire moves dropTo past every mark at or before cutoffNs and returns it.
func (a *ageMarks) expire(cutoffNs int64) uint64 {
	i := 0
	for i < len(a.marks) && a.marks[i].atNs <= cutoffNs {
		a.dropTo = max(a.dropTo, a.marks[i].nextOffset)
		i++
	}
	a.marks = append(a.marks[:0], a.marks[i:]...)
	return a.dropTo
}

// retentionCheckTicks is how often, in ticks, g's scopes take age marks
// (0: the stream has no age limit).
func (n *Node) retentionCheckTicks(g *raftGroup) uint64 {
	if g.spec == nil || g.spec.RetainedAgeMaxNs <= 0 {
		return 0
	}
	return uint64(max(1, g.spec.RetainedAgeMaxNs/retentionMarksPerAge/n.cfg.TickNs))
}

// checkRetention takes age marks in every group whose stream has an age
// limit and, where this node leads, proposes the drops now due.
func (n *Node) checkRetention() {
	nowNs := n.host.NowNs()
	for _, g := range n.raftGroups {
		every := n.retentionCheckTicks(g)
		if every == 0 || n.ticks%every != 0 {
			continue
		}
		if g.ages == nil {
			g.ages = map[string]*ageMarks{}
		}
		for _, t := range g.tenants {
			s := g.scopes[t]
			a := g.ages[t]
			if a == nil {
				a = &ageMarks{}
				g.ages[t] = a
			}
			a.note(s.NextOffset(), nowNs)
			dropTo, limit := a.expire(nowNs-g.spec.RetainedAgeMaxNs), n.retainLimit(s)
			if g.isLeader && dropTo > limit {
				n.notePath(PathRetentionHeld)
			}
			dropTo = min(dropTo, limit)
			if g.isLeader && dropTo > s.FirstOffset() {
				n.proposeInternal(g, &command{kind: cmdRetain, scope: g.scopeOf(t), offset: dropTo})
			}
		}
	}
}

// proposeInternal proposes a command the node makes itself (no client
// waits for it). A dropped proposal is retried by whatever made it.
func (n *Node) proposeInternal(g *raftGroup, c *command) {
	n.seq++
	c.proposer, c.incarnation, c.seq = n.cfg.ID, n.writes.incarnation, n.seq
	data, err := encodeCommand(c)
	if err != nil {
		panic(fmt.Sprintf("node %d: group %d: own %s command does not encode: %v", n.cfg.ID, g.id, c.kind, err))
	}
	if err := n.raftPropose(g, data); err != nil {
		n.logger.Warningf("group %d: %s proposal dropped: %v", g.id, c.kind, err)
		return
	}
	n.trace.operator(g, c, data)
}

// applyRetain applies a retain command: drop the scope's records below
// the offset, never past a consumer group's committed position, at this
// log position on every replica.
func (n *Node) applyRetain(s *statemachine.Shard, c *command) error {
	if c.offset > s.NextOffset() {
		return fmt.Errorf("%w: retain below %d in scope %s, past its tail %d", statemachine.ErrInvalidCommand, c.offset, c.scope, s.NextOffset())
	}
	return s.DropBefore(min(c.offset, n.retainLimit(s)))
}

// ProposeRetain is an operator's retention step in group, which this node
// must lead: for every scope holding more than keepRecords records it
// proposes dropping all but the newest keepRecords, never past a consumer
// group's committed position (no group is stranded). The drop is a retain
// command, applied at the same log position on every replica like
// retention by age. It returns how many scopes it proposed a drop for.
func (n *Node) ProposeRetain(group uint64, keepRecords uint64) (int, error) {
	g := n.raftGroup(group)
	switch {
	case g == nil:
		return 0, fmt.Errorf("retain refused: node %d hosts no group %d", n.cfg.ID, group)
	case group == MetaGroup:
		return 0, fmt.Errorf("retain refused: group %d is the metadata group, which holds no scopes", group)
	case !g.isLeader || n.failed != nil:
		return 0, nil
	}
	proposed := 0
	for _, t := range g.tenants {
		s := g.scopes[t]
		if s.NextOffset()-s.FirstOffset() <= keepRecords {
			continue
		}
		limit := n.retainLimit(s)
		if s.NextOffset()-keepRecords > limit {
			n.notePath(PathRetentionHeld)
		}
		if to := min(s.NextOffset()-keepRecords, limit); to > s.FirstOffset() {
			n.proposeInternal(g, &command{kind: cmdRetain, scope: g.scopeOf(t), offset: to})
			proposed++
		}
	}
	if proposed > 0 {
		n.maybeProcess()
	}
	return proposed, nil
}
