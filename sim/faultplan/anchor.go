package faultplan

import (
	"sort"

	"github.com/felixsim/felixsim/sim/prng"
)

// Anchored faults: a scope's first writes are what the model-state
// projection watches (tla/README.md, "Model coverage"), and a fault drawn
// at a random time rarely meets them. A share of the drawn faults
// (Knobs.AnchorPpm) is moved to strike just after one of the anchors
// (Knobs.AnchorsNs: when a scope gets its first writes), while the first
// write is on its way through the raft pipeline. The moves draw from a
// stream of their own, so every fault keeps its kind, node and fields, and
// the plan records the moved times: a replay or a shrunk plan never draws
// them again.

// AnchorLeadNs and AnchorLagMaxNs bound where an anchored fault strikes:
// from a millisecond before its anchor (the write not yet at the leader)
// to two heartbeats after (followers learning the commit mark).
const (
	AnchorLeadNs   = 1_000_000
	AnchorLagMaxNs = 40_000_000
)

// anchoring moves faults onto anchors.
type anchoring struct {
	k *Knobs
	r *prng.Rand
}

func (k *Knobs) newAnchoring(stream string) anchoring {
	if k.AnchorPpm <= 0 || len(k.AnchorsNs) == 0 {
		return anchoring{k: k}
	}
	return anchoring{k: k, r: prng.Derive(k.Seed, stream)}
}

// move shifts fs (a fault and its partner, if any) by one offset so that
// the first strikes near the first anchor at or after it, with chance
// AnchorPpm; nil when the move would take a fault past the fault phase.
// Each call draws the same number of values whatever it decides.
func (a anchoring) move(fs []FaultEvent) []FaultEvent {
	if a.r == nil {
		return fs
	}
	chosen := a.r.ChancePpm(a.k.AnchorPpm)
	lag := a.r.Int63nRange(-AnchorLeadNs, AnchorLagMaxNs)
	durNs := a.r.Int63nRange(msNs, max(a.k.AnchorDurMaxNs, 2*msNs))
	if !chosen {
		return fs
	}
	at := fs[0].AtNs
	i := sort.Search(len(a.k.AnchorsNs), func(i int) bool { return a.k.AnchorsNs[i] >= at })
	if i == len(a.k.AnchorsNs) {
		return fs
	}
	shift := max(a.k.AnchorsNs[i]+lag, 0) - at
	out := make([]FaultEvent, len(fs))
	for j, f := range fs {
		f.AtNs += shift
		a.aim(&f, len(fs), durNs)
		if f.AtNs >= a.k.DurationNs {
			return nil
		}
		out[j] = f
	}
	return out
}

// aim points an anchored fault of a group of n (a fault and its partner,
// if any) at the role Knobs.AnchorRole, when the fault has a node, no
// partner and no lasting damage (as drawFault gives roles), and cuts a
// span longer than Knobs.AnchorDurMaxNs to durNs: a leader killed or
// paused just after a scope's first write, back before a new leader is
// elected.
func (a anchoring) aim(f *FaultEvent, n int, durNs int64) {
	if a.k.AnchorRole != "" && n == 1 && f.Kind.targetsNode() && !faultKinds[f.Kind].lasting {
		f.Role = a.k.AnchorRole
	}
	if a.k.AnchorDurMaxNs > 0 && f.DurNs > a.k.AnchorDurMaxNs {
		f.DurNs = durNs
	}
}
