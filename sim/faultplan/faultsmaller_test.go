package faultplan

import (
	"testing"

	"pgregory.net/rapid"
)

// TestSmallerStepsTowardZeroAndEnds: every variant of a valid fault is
// valid, differs from it in one ns or ppm field whose magnitude shrank
// (sign kept, never to zero), and always taking the first variant ends.
func TestSmallerStepsTowardZeroAndEnds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		const nodes = 5
		f, ok := genFault(t, 7, nodes)
		if !ok {
			t.Skip("kind check refused the draw")
		}
		for _, g := range f.Smaller() {
			if err := g.validate(nodes); err != nil {
				t.Fatalf("%s -> %s: invalid: %v", f, g, err)
			}
			changed := 0
			for id := faultFieldID(0); id < faultFieldCount; id++ {
				fld := &faultFields[id]
				a, b := fld.get(&f), fld.get(&g)
				if a == b {
					continue
				}
				changed++
				if fld.unit != &unitNs && fld.unit != &unitPpm {
					t.Fatalf("%s -> %s: changed %s, not a magnitude", f, g, fld.key)
				}
				if b == 0 || (a < 0) != (b < 0) || abs64(b) >= abs64(a) {
					t.Fatalf("%s -> %s: %s %d -> %d does not shrink toward zero", f, g, fld.key, a, b)
				}
			}
			if changed != 1 || g.AtNs != f.AtNs || g.Kind != f.Kind || g.Role != f.Role {
				t.Fatalf("%s -> %s: want exactly one field changed, got %d", f, g, changed)
			}
		}
		for steps := 0; ; steps++ {
			v := f.Smaller()
			if len(v) == 0 {
				break
			}
			if steps > 1000 {
				t.Fatalf("Smaller from %s does not end", f)
			}
			f = v[len(v)-1] // the gentlest step: the longest way down
		}
	})
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// TestSmallerExamples pins the steps for a kill: its duration to the
// floor, then halved; a loss's chance likewise; a healnet has nothing.
func TestSmallerExamples(t *testing.T) {
	kill := FaultEvent{AtNs: 5, Kind: FaultKill, Node: 1, Torn: true, DurNs: 800 * msNs}
	got := kill.Smaller()
	if len(got) != 2 || got[0].DurNs != msNs || got[1].DurNs != 400*msNs || !got[0].Torn || got[0].Node != 1 {
		t.Fatalf("kill.Smaller() = %v", got)
	}
	jump := FaultEvent{AtNs: 5, Kind: FaultClockJump, Node: 1, JumpNs: -3 * msNs}
	if got := jump.Smaller(); len(got) != 2 || got[0].JumpNs != -msNs || got[1].JumpNs != -1_500_000 {
		t.Fatalf("clockjump.Smaller() = %v", got)
	}
	if got := (FaultEvent{Kind: FaultHealNet}).Smaller(); len(got) != 0 {
		t.Fatalf("healnet.Smaller() = %v", got)
	}
	if got := (FaultEvent{Kind: FaultLoss, ChancePpm: SmallerPpmMin}).Smaller(); len(got) != 0 {
		t.Fatalf("loss at the floor: Smaller() = %v", got)
	}
}
