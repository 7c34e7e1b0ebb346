package faultplan

import (
	"slices"

	"github.com/felixsim/felixsim/sim/prng"
)

// Side nodes are processes around the system under test that crash like
// it (the outbox relay: the seeds' Kafka listener) but are no target of
// the drawn faults, so that adding one changes no broker's schedule.
// Generate kills each of Knobs.SideNodes apart from the drawn faults,
// from the seed's own "plan-side" stream: one kill every
// Knobs.SideKillGapMeanNs on average over the fault phase, with the
// fields the kind's own draw gives them (the kind the table marks side:
// kill, which tears the node's unsynced tails half the time and boots it
// again after 1 ms to 2 s), none inside a progress window. Plans whose
// kinds leave that kind out get none.

// sideKillsMaxPerPlan caps the side kills of one plan (overflow policy:
// no further kill is drawn).
const sideKillsMaxPerPlan = FaultsPerPlanMax / 4

// drawSideKills draws the side nodes' kills, at most countMax of them.
func (k *Knobs) drawSideKills(allowed []FaultKind, countMax int) []FaultEvent {
	kind := sideKind()
	if len(k.SideNodes) == 0 || k.SideKillGapMeanNs <= 0 || !allowsKind(allowed, kind) {
		return nil
	}
	countMax = min(countMax, sideKillsMaxPerPlan)
	r := prng.Derive(k.Seed, "plan-side")
	gap := k.SideKillGapMeanNs
	var out []FaultEvent
	for at := r.Int63nRange(0, 2*gap); at < k.DurationNs && len(out) < countMax; at += r.Int63nRange(1, 2*gap) {
		f := FaultEvent{AtNs: at, Kind: kind, Node: k.SideNodes[r.Intn(len(k.SideNodes))]}
		faultKinds[kind].draw(r, &f, nil)
		if k.inProgressWindow(at) || k.inProgressWindow(at+f.DurNs) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// allowsKind reports whether kind is among allowed (nil allows every kind).
func allowsKind(allowed []FaultKind, kind FaultKind) bool {
	return allowed == nil || slices.Contains(allowed, kind)
}

// sideKind is the kind the table marks side.
func sideKind() FaultKind {
	for k := range faultKinds {
		if faultKinds[k].side {
			return FaultKind(k)
		}
	}
	panic("sim: no fault kind is marked side in faultKinds")
}
