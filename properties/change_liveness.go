package properties

import "fmt"

// Liveness during a membership change. A membership change (a broker
// demoted and promoted again, a replaced broker's new identity added and
// its old one removed) spends none of a group's availability when it is
// done right: raft commits with any majority of the group's voters, a
// learner catching up votes for nothing, and one simple change at a time
// keeps every two consecutive configurations' majorities overlapping. So
// while the change is in flight, a shard group with a majority of its
// voters running and connected (to each other and to the client) keeps
// acknowledging writes, within a budget of its own. The runner's change
// probe (sim/runner/changeliveness.go) writes to every stream shard group
// throughout such a change, and records each write with how long both
// conditions held.

// ChangeWrite is one write the change probe sent to a shard group while a
// membership change was in flight and a majority of the group's voters
// was running and connected.
type ChangeWrite struct {
	Group uint64
	// SentNs is when the probe first sent it (it re-sends to the leader
	// of the moment until an answer says Written).
	SentNs int64
	// AckedNs is when the probe saw it acknowledged (0: it never was).
	AckedNs int64
	// HeldUntilNs is the last time the probe saw, before any
	// acknowledgement, that the change was still in flight and a majority
	// of the group's voters still running and connected.
	HeldUntilNs int64
}

// WritesAckedDuringChange checks LivenessDuringChange over the change
// probe's writes: a write is a violation when, for budgetNs after it was
// sent, the change stayed in flight and a majority of the group's voters
// connected (HeldUntilNs - SentNs >= budgetNs), and it was not
// acknowledged within budgetNs. A write acknowledged before it was sent,
// or a budget that is not positive, is refused as malformed input.
func WritesAckedDuringChange(ws []ChangeWrite, budgetNs int64) error {
	if budgetNs <= 0 {
		return fmt.Errorf("change-liveness budget %d ns refused: not positive", budgetNs)
	}
	var first *ChangeWrite
	late := 0
	for i := range ws {
		w := &ws[i]
		if w.AckedNs != 0 && w.AckedNs < w.SentNs || w.HeldUntilNs < w.SentNs {
			return fmt.Errorf("change write %d to group %d refused: sent at %d ns, acknowledged at %d ns, conditions held until %d ns", i, w.Group, w.SentNs, w.AckedNs, w.HeldUntilNs)
		}
		acked := w.AckedNs != 0 && w.AckedNs-w.SentNs <= budgetNs
		if !acked && w.HeldUntilNs-w.SentNs >= budgetNs {
			late++
			if first == nil {
				first = w
			}
		}
	}
	if first == nil {
		return nil
	}
	got := "never acknowledged"
	if first.AckedNs != 0 {
		got = fmt.Sprintf("acknowledged only after %d ns", first.AckedNs-first.SentNs)
	}
	more := ""
	if late > 1 {
		more = fmt.Sprintf("; and %d more writes", late-1)
	}
	return InvariantLivenessDuringChange.Errorf("group %d: a write sent at %d ns, during a membership change, with a majority of the group's voters running and connected for the next %d ns, was %s (budget %d ns)%s",
		first.Group, first.SentNs, first.HeldUntilNs-first.SentNs, got, budgetNs, more)
}
