package properties

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
)

// Retention and consumer groups. A group's committed position is its
// oldest offset not yet acknowledged: every record at or above it is
// still owed to the group's consumers. Retention never drops such a
// record (the broker holds retention back instead; see node/retention.go),
// so on every replica, after every retention step, each group's committed
// position is at or above its scope's first retained offset. A group
// below the window is stranded: its next fetch is refused forever and
// the records between its position and the window start are lost to it
// without anyone being told.

// ScopeWindow is one scope's retained window on one replica and the
// committed positions of its consumer groups.
type ScopeWindow struct {
	Scope felix.Scope
	// FirstOffset is the first retained offset, NextOffset the tail.
	FirstOffset, NextOffset uint64
	// Groups are the scope's groups (Scope fields equal to Scope).
	Groups []GroupPositionView
}

// GroupsWithinWindow checks GroupRecordsRetained on one replica: in every
// scope of ws, every consumer group's committed position is at or above
// the first retained offset. A window with FirstOffset past NextOffset is
// refused as malformed input.
func GroupsWithinWindow(broker string, ws []ScopeWindow) error {
	for i := range ws {
		w := &ws[i]
		if w.FirstOffset > w.NextOffset {
			return fmt.Errorf("broker %s scope %s window refused: first offset %d past tail %d", broker, w.Scope, w.FirstOffset, w.NextOffset)
		}
		for j := range w.Groups {
			g := &w.Groups[j]
			if g.CommittedOffset < w.FirstOffset {
				return InvariantGroupRecordsRetained.Errorf("broker %s: scope %s group %q is stranded at committed position %d below the retained window [%d, %d): retention dropped records %d..%d it had not committed",
					broker, w.Scope, g.Group, g.CommittedOffset, w.FirstOffset, w.NextOffset, g.CommittedOffset, w.FirstOffset-1)
			}
		}
	}
	return nil
}

// GroupStranded is GroupRecordsRetained's finding for a group whose fetch
// a broker refused because the records it had to hand out were dropped
// by retention (refusal is the broker's message).
func GroupStranded(k GroupKey, refusal string) error {
	return InvariantGroupRecordsRetained.Errorf("scope %s group %q is stranded below the retained window: its fetch was refused (%s), so records it had not committed were dropped",
		k.Scope, k.Group, refusal)
}
