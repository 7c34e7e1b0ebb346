package faultplan

import (
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/sim/prng"
	"github.com/felixsim/felixsim/sim/world"
)

// Knobs steer Generate; build them by field name.
type Knobs struct {
	// Seed fixes the plan (drawn from the seed's "plan" stream).
	Seed uint64
	// Nodes is the world's size; ExemptMask marks nodes no fault may target.
	Nodes      int
	ExemptMask uint64
	// DurationNs is the length of the fault phase.
	DurationNs int64
	// FaultGapMeanNs is the mean time between faults: the intensity knob.
	// Zero means a plan without faults.
	FaultGapMeanNs int64
	// Kinds are the fault kinds allowed; nil allows every kind.
	Kinds []FaultKind
	// Swarm picks a random non-empty subset of Kinds for this seed, so that
	// across seeds rare combinations are tried without any one seed
	// drowning in every fault at once.
	Swarm bool
	// Roles, if any, are role names (see FaultEvent.Role) that a quarter of
	// node-targeting faults aim at instead of a fixed node (every fault of
	// a kind the table marks aimed).
	Roles []string
	// Workload is copied into the plan unchanged.
	Workload []Param
	// ProgressEveryNs and ProgressWindowNs shape the plan for progress:
	// at every multiple of ProgressEveryNs within the fault phase a calm
	// fault (progressWindowKind) undoes every transient fault, and no fault is
	// drawn for the ProgressWindowNs that follow, so faults cannot pile up
	// into a run where almost nothing succeeds. Zero means no windows.
	ProgressEveryNs  int64
	ProgressWindowNs int64
	// LastingNodesMax caps how many distinct nodes faults whose damage
	// outlives the heal (FaultKind.Lasting) may hit: such a fault drawn for
	// a further node is dropped, with its partner. Zero means no cap (leave
	// lasting kinds out of Kinds to allow none).
	LastingNodesMax int
	// SideNodes are nodes no drawn fault targets that are killed apart
	// from the drawn faults, one kill every SideKillGapMeanNs on average
	// (see sidekills.go); zero or none: no side kills.
	SideNodes         []int
	SideKillGapMeanNs int64
	// AnchorsNs are times (ascending) at which a scope gets its first
	// writes; AnchorPpm is the share (parts per million) of the drawn
	// faults moved to strike just after one of them (see anchor.go).
	AnchorsNs []int64
	AnchorPpm int64
	// AnchorRole, when set, is the role an anchored fault aims at, and
	// AnchorDurMaxNs, when positive, caps an anchored fault's span (see
	// anchor.go).
	AnchorRole     string
	AnchorDurMaxNs int64
	// Focus, when set, names the only drawn kinds the swarm picks its
	// subset from (SteerArm.Focus).
	Focus []string
}

// FaultsPerPlanMax caps a generated plan; generation stops there.
const FaultsPerPlanMax = 10_000

// Generate draws a fault plan from the knobs. The same knobs always give
// the same plan.
func Generate(k Knobs) (*Plan, error) {
	if k.Nodes < 1 || k.Nodes > world.NodesMax {
		return nil, fmt.Errorf("sim: generate for %d nodes refused: need 1..%d", k.Nodes, world.NodesMax)
	}
	if k.DurationNs < 0 || k.FaultGapMeanNs < 0 {
		return nil, fmt.Errorf("sim: generate refused: duration %d ns and gap %d ns must not be negative", k.DurationNs, k.FaultGapMeanNs)
	}
	for _, kind := range k.Kinds {
		if !kind.valid() {
			return nil, fmt.Errorf("sim: generate refused: fault kind %d is unknown", kind)
		}
	}
	r := prng.Derive(k.Seed, "plan")
	p := &Plan{Seed: k.Seed, Nodes: k.Nodes, DurationNs: k.DurationNs, Workload: append([]Param(nil), k.Workload...)}
	var targets []int
	for i := 0; i < k.Nodes; i++ {
		if (k.ExemptMask>>i)&1 == 0 {
			targets = append(targets, i)
		}
	}
	kinds, operator, targeted := splitApart(usableKinds(k.Kinds, len(targets)))
	if k.FaultGapMeanNs == 0 || len(kinds)+len(operator)+len(targeted) == 0 {
		return p, p.Validate()
	}
	if len(kinds) > 0 {
		p.Faults = k.drawFaults(r, kinds, targets)
	}
	p.Faults = append(p.Faults, k.drawApart("plan-operator", operator, 2*k.FaultGapMeanNs, k.FaultGapMeanNs, targets, FaultsPerPlanMax/2-len(p.Faults))...)
	p.Faults = append(p.Faults, k.drawSideKills(k.Kinds, FaultsPerPlanMax/2-len(p.Faults))...)
	p.Faults = append(p.Faults, k.drawApart("plan-targeted", targeted, k.FaultGapMeanNs, TargetedGapFaults*k.FaultGapMeanNs, targets, FaultsPerPlanMax/2-len(p.Faults))...)
	p.Faults = append(p.Faults, k.progressWindows()...)
	sort.SliceStable(p.Faults, func(i, j int) bool { return p.Faults[i].AtNs < p.Faults[j].AtNs })
	return p, p.Validate()
}

// TargetedGapFaults is how many mean fault gaps lie between two targeted
// faults on average (the first comes within one gap): each waits up to
// its window for its moment and then kills a broker, on top of the plan's
// other faults (most of those waiting for a rare moment lapse).
const TargetedGapFaults = 2

// splitApart splits kinds into the faults, the operator actions and the
// targeted faults, each in the order given.
func splitApart(kinds []FaultKind) (faults, operator, targeted []FaultKind) {
	for _, kind := range kinds {
		switch {
		case kind.Operator():
			operator = append(operator, kind)
		case kind.Targeted():
			targeted = append(targeted, kind)
		default:
			faults = append(faults, kind)
		}
	}
	return faults, operator, targeted
}

// drawApart draws at most countMax faults of kinds (a swarm subset of
// them when k.Swarm) from the seed's stream named stream, the first
// within firstMaxNs, then one every gap on average, none in a progress
// window: the operator actions and the targeted faults, each class from
// its own stream so that adding a kind to one leaves every other draw of
// the seed as it was.
func (k *Knobs) drawApart(stream string, kinds []FaultKind, firstMaxNs, gap int64, targets []int, countMax int) []FaultEvent {
	if len(kinds) == 0 {
		return nil
	}
	r := prng.Derive(k.Seed, stream)
	if k.Swarm && len(kinds) > 1 {
		kinds = swarmSubset(r, kinds)
	}
	var out []FaultEvent
	for at := r.Int63nRange(0, firstMaxNs); at < k.DurationNs && len(out)+2 <= countMax; at += r.Int63nRange(1, 2*gap) {
		if k.inProgressWindow(at) {
			continue
		}
		fs := drawWithPartner(r, at, kinds[r.Intn(len(kinds))], targets, *k)
		if len(fs) == 2 && k.inProgressWindow(fs[1].AtNs) {
			continue
		}
		out = append(out, fs...)
	}
	return out
}

// drawFaults draws the plan's faults of kinds (a swarm subset of them
// when k.Swarm) from r.
func (k *Knobs) drawFaults(r *prng.Rand, kinds []FaultKind, targets []int) []FaultEvent {
	kinds = focusKinds(kinds, k.Focus)
	if k.Swarm && len(kinds) > 1 {
		kinds = swarmSubset(r, kinds)
	}
	var faults []FaultEvent
	lastingHit := map[int]bool{}
	anchors := k.newAnchoring("plan-anchors")
	for at := r.Int63nRange(0, 2*k.FaultGapMeanNs); at < k.DurationNs && len(faults)+2 <= FaultsPerPlanMax/2; at += r.Int63nRange(1, 2*k.FaultGapMeanNs) {
		if k.inProgressWindow(at) {
			continue
		}
		fs := anchors.move(drawWithPartner(r, at, kinds[r.Intn(len(kinds))], targets, *k))
		if fs == nil || k.inProgressWindow(fs[0].AtNs) || len(fs) == 2 && k.inProgressWindow(fs[1].AtNs) {
			continue // moved past the end, or it (or its partner) would strike inside a progress window
		}
		if f := fs[0]; f.Kind.Lasting() && k.LastingNodesMax > 0 && !lastingHit[f.Node] {
			if len(lastingHit) >= k.LastingNodesMax {
				continue
			}
			lastingHit[f.Node] = true
		}
		faults = append(faults, fs...)
	}
	return faults
}

// inProgressWindow reports whether atNs falls in a progress window.
func (k *Knobs) inProgressWindow(atNs int64) bool {
	return k.ProgressEveryNs > 0 && atNs >= k.ProgressEveryNs && atNs%k.ProgressEveryNs < k.ProgressWindowNs
}

// progressWindows are the calm faults that open the progress windows.
func (k *Knobs) progressWindows() []FaultEvent {
	var out []FaultEvent
	for at := k.ProgressEveryNs; k.ProgressEveryNs > 0 && at < k.DurationNs && len(out) < FaultsPerPlanMax/2; at += k.ProgressEveryNs {
		out = append(out, FaultEvent{AtNs: at, Kind: progressWindowKind})
	}
	return out
}

// usableKinds drops kinds that need more target nodes than there are.
func usableKinds(allowed []FaultKind, targets int) []FaultKind {
	if allowed == nil {
		allowed = AllFaultKinds()
	}
	var out []FaultKind
	for _, kind := range allowed {
		if kind.targetsMin() <= targets {
			out = append(out, kind)
		}
	}
	return out
}

// swarmSubset keeps each kind with probability one half, and at least one.
func swarmSubset(r *prng.Rand, kinds []FaultKind) []FaultKind {
	var out []FaultKind
	for _, kind := range kinds {
		if r.Uint64()&1 == 1 {
			out = append(out, kind)
		}
	}
	if len(out) == 0 {
		out = append(out, kinds[r.Intn(len(kinds))])
	}
	return out
}

// drawWithPartner draws a fault of the given kind and, for a kind drawn
// with one, its partner.
func drawWithPartner(r *prng.Rand, atNs int64, kind FaultKind, targets []int, k Knobs) []FaultEvent {
	f := drawFault(r, atNs, kind, targets, k)
	if pair := faultKinds[kind].pair; pair != nil {
		return []FaultEvent{f, pair(r, f, targets, k.DurationNs)}
	}
	return []FaultEvent{f}
}

// drawFault draws a fault of the given kind: its node and role if it has a
// node, then the rest as its table entry draws them. A kind drawn with a
// partner (faultKindSpec.pair) keeps no role: the two must hit one node;
// nor does a lasting kind: a role resolves to a different node each time
// and would slip past Knobs.LastingNodesMax.
func drawFault(r *prng.Rand, atNs int64, kind FaultKind, targets []int, k Knobs) FaultEvent {
	f := FaultEvent{AtNs: atNs, Kind: kind}
	if kind.targetsNode() {
		f.Node = targets[r.Intn(len(targets))]
		if len(k.Roles) > 0 && (faultKinds[kind].aimed || r.Intn(4) == 0) {
			f.Role = k.Roles[r.Intn(len(k.Roles))]
		}
	}
	if faultKinds[kind].pair != nil || faultKinds[kind].lasting {
		f.Role = ""
	}
	if draw := faultKinds[kind].draw; draw != nil {
		draw(r, &f, targets)
	}
	return f
}
