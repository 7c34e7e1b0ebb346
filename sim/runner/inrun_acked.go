package runner

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
)

// acknowledged is what each broker acknowledged as the run goes (its last
// append per raft group, the applied index it answered from, the appends
// it refused), so that each boot can hold its store to it
// (StoreKeepsAcknowledged) before raft starts on that store, and a
// liveness failure can say which follower refuses appends.
type acknowledged struct {
	// byBroker is looked up by raft id, never ranged over.
	byBroker map[uint64]*brokerAcks
}

// brokerAcks is one broker's acknowledgements, indexed by raft group id
// (an entry whose group is 0 holds nothing yet).
//
// Invariant: len(groups) <= groupsMax.
type brokerAcks struct {
	groups []groupAcks
}

// groupsMax bounds a broker's entries: the metadata group and every shard
// group a node may host.
const groupsMax = node.MetaGroup + node.ShardGroupsMax + 1

// groupAcks is what a broker acknowledged in one group, and its refusals.
type groupAcks struct {
	acked properties.AcknowledgedGroup
	// rejects counts the appends it refused; lastReject is the last one.
	rejects    int
	lastReject node.AppendAck
	rejectAtNs int64
}

func newAcknowledged() acknowledged { return acknowledged{byBroker: map[uint64]*brokerAcks{}} }

// group returns broker b's entry for group, adding it if new.
func (b *brokerAcks) group(broker string, group uint64) *groupAcks {
	if group >= groupsMax {
		panic(fmt.Sprintf("runner: %s acknowledged in raft group %d, past the %d groups a node may host", broker, group, groupsMax))
	}
	for uint64(len(b.groups)) <= group {
		b.groups = append(b.groups, groupAcks{})
	}
	ga := &b.groups[group]
	if ga.acked.Group == 0 {
		ga.acked = properties.AcknowledgedGroup{Broker: broker, Group: group}
	}
	return ga
}

// find returns broker b's entry for group, nil if it has none.
func (b *brokerAcks) find(group uint64) *groupAcks {
	if group >= uint64(len(b.groups)) || b.groups[group].acked.Group == 0 {
		return nil
	}
	return &b.groups[group]
}

// noteAcks records what a durable round acknowledges: each shard group's
// applied index, and each append acknowledged or refused.
func (ir *inRun) noteAcks(n *node.Node, r *node.DurableRound) {
	id := n.ID()
	b := ir.acks.byBroker[id]
	if b == nil {
		b = &brokerAcks{}
		ir.acks.byBroker[id] = b
	}
	now, name := ir.c.World.NowNs(), ir.name(id)
	for i, g := range r.Groups {
		if g == node.MetaGroup {
			continue // its applied index is never stored: it re-applies from its snapshot
		}
		if a := &b.group(name, g).acked; r.Applied[i] > a.Applied {
			a.Applied, a.AppliedAtNs = r.Applied[i], now
		}
	}
	for _, ak := range r.Acks {
		ga := b.group(name, ak.Group)
		if ak.Reject {
			ga.rejects++
			ga.lastReject, ga.rejectAtNs = ak, now
			continue
		}
		a := &ga.acked
		if !a.HasAppend || ak.Term > a.Append.Term || ak.Term == a.Append.Term && ak.Index > a.Append.Index {
			a.Append, a.HasAppend = properties.AcknowledgedAppend{Term: ak.Term, Index: ak.Index, To: ir.name(ak.To), AtNs: now}, true
		}
	}
}

// Recovered checks a broker's store as it opened, before raft starts on
// it: its position rows against its log rows (StoreRoundsWhole) and every
// group against what the broker acknowledged (StoreKeepsAcknowledged).
// A group found to have lost something is judged afresh from then on:
// the loss is reported once.
func (ir *inRun) Recovered(r *node.RecoveredStore) {
	name := ir.name(r.Node)
	positions := make([]properties.RecoveredPosition, len(r.Scopes))
	for i, s := range r.Scopes {
		positions[i] = properties.RecoveredPosition{Scope: s.Scope.String(), FirstOffset: s.FirstOffset, NextOffset: s.NextOffset,
			HoldsFirst: s.HoldsFirst, HoldsLast: s.HoldsLast, HoldsNext: s.HoldsNext}
	}
	ir.note(properties.InvariantStoreRoundsWhole, properties.StoreRoundsWhole(name, positions))
	b := ir.acks.byBroker[r.Node]
	if b == nil {
		return
	}
	var lost []error
	for i := range b.groups {
		a := &b.groups[i].acked
		if a.Group == 0 {
			continue
		}
		rec := recoveredGroupOf(r, a.Group)
		if err := properties.StoreKeepsAcknowledged(a, &rec); err != nil {
			lost = append(lost, err)
			a.HasAppend, a.Applied = false, min(a.Applied, rec.Applied)
		}
	}
	ir.note(properties.InvariantStoreKeepsAcknowledged, foldErrors(lost, "groups of the same store lost acknowledged facts"))
}

// recoveredGroupOf is group as r recovered it (not Found when r holds
// nothing of it).
func recoveredGroupOf(r *node.RecoveredStore, group uint64) properties.RecoveredGroup {
	i, found := slices.BinarySearchFunc(r.Groups, group, func(g node.RecoveredGroup, id uint64) int { return cmp.Compare(g.Group, id) })
	if !found {
		return properties.RecoveredGroup{}
	}
	g := &r.Groups[i]
	return properties.RecoveredGroup{Found: true, HardState: hardStateOf(g.HardState), SnapshotIndex: g.SnapshotIndex, LastIndex: g.LastIndex,
		Applied: g.AppliedIndex}
}
