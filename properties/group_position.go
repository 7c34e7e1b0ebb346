package properties

import "fmt"

// GroupPositionsNeverBackwards checks GroupPositionMonotonic on one broker:
// before are the committed positions the broker last made durable, after
// the ones it holds now (after a restart, a snapshot install or a later
// durable round). Every group of before must still be there, at a position
// at least as far; groups only in after are new. Both lists must be
// ascending by scope, then group.
func GroupPositionsNeverBackwards(broker string, before, after []GroupPositionView) error {
	for _, l := range [][]GroupPositionView{before, after} {
		for i := 1; i < len(l); i++ {
			if !lessGroupPosition(&l[i-1], &l[i]) {
				return fmt.Errorf("broker %s group positions refused: scope %s group %q after scope %s group %q (not strictly ascending)",
					broker, l[i].Scope, l[i].Group, l[i-1].Scope, l[i-1].Group)
			}
		}
	}
	j := 0
	for i := range before {
		b := &before[i]
		for j < len(after) && lessGroupPosition(&after[j], b) {
			j++
		}
		if j == len(after) || after[j].Scope != b.Scope || after[j].Group != b.Group {
			return InvariantGroupPositionMonotonic.Errorf("broker %s: scope %s group %q was durable at committed position %d and is now gone", broker, b.Scope, b.Group, b.CommittedOffset)
		}
		if after[j].CommittedOffset < b.CommittedOffset {
			return InvariantGroupPositionMonotonic.Errorf("broker %s: scope %s group %q committed position moved back from %d (durable) to %d", broker, b.Scope, b.Group, b.CommittedOffset, after[j].CommittedOffset)
		}
	}
	return nil
}

// GroupPositionsSurviveSnapshot checks broker's consumer-group positions
// right after it installed a raft snapshot at index snapIndex (after)
// against the positions a replica made durable at raft index refIndex <=
// snapIndex (ref; positions are a function of the applied log, so they
// only grow along it): every group of ref must be in after, at a committed
// position no lower. Both lists ascend by scope and group.
func GroupPositionsSurviveSnapshot(broker string, snapIndex, refIndex uint64, ref, after []GroupPositionView) error {
	if refIndex > snapIndex {
		return fmt.Errorf("group positions at raft index %d refused as the reference for a snapshot at %d: later", refIndex, snapIndex)
	}
	j := 0
	for i := range ref {
		r := &ref[i]
		for j < len(after) && lessGroupPosition(&after[j], r) {
			j++
		}
		if j == len(after) || after[j].Scope != r.Scope || after[j].Group != r.Group {
			return InvariantGroupPositionInSnapshot.Errorf("broker %s installed a snapshot at raft index %d without scope %s group %q, which a replica made durable at index %d at committed position %d",
				broker, snapIndex, r.Scope, r.Group, refIndex, r.CommittedOffset)
		}
		if after[j].CommittedOffset < r.CommittedOffset {
			return InvariantGroupPositionInSnapshot.Errorf("broker %s installed a snapshot at raft index %d with scope %s group %q at committed position %d, below %d that a replica made durable at index %d",
				broker, snapIndex, r.Scope, r.Group, after[j].CommittedOffset, r.CommittedOffset, refIndex)
		}
	}
	return nil
}
