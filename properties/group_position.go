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
