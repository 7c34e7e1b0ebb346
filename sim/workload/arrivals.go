package workload

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/prng"
)

// Scope arrivals: new scopes that get their first writes throughout the
// fault phase. A scope's first writes are what the model-state projection
// watches (tla/README.md, "Model coverage"); the tenants' own scopes all
// get theirs in the first tens of milliseconds, before any fault, so
// without arrivals a run shows the model almost only the happy path.
// Arrival j (of Config.Arrivals) is a tenant of its own, named after the
// client that makes it, whose one entity gets two writes: the first at a
// time drawn in the j-th of Arrivals equal slices of the fault phase, the
// second ArrivalSecondMaxNs or less after it (often while the first is
// still being replicated, so the two meet in the raft pipeline, and a
// conditional second write expecting the tail before the first is
// refused). Each write is one of the client's operation slots, drawn like
// any other (a shrunk plan may skip it), and goes through the same calls,
// history and retries as the client's own writes.

// ArrivalsMax caps Config.Arrivals: each arrival is a tenant, and a stream
// shard's raft group holds at most 64 tenants (node.ScopesPerRaftGroupMax),
// two of them the workload's and one the liveness probe's.
const ArrivalsMax = 56

// ArrivalSecondMaxNs bounds the time from an arrival's first write to its
// second: within two heartbeats, while followers may not yet know the
// first is committed.
const ArrivalSecondMaxNs = 40_000_000

// arrivalWritesMax is how many arrival writes one client keeps in flight
// beyond Config.InFlightMax (the client endpoint's cap is raised by as
// much); an arrival write past it is not invoked.
const arrivalWritesMax = 4

// arrivalState is one client's arrivals: how many it has started.
type arrivalState struct {
	started int
}

// arrivalTenant names arrival j of client index (its tenant).
func arrivalTenant(tenant string, index, j int) string {
	return fmt.Sprintf("%s.%d.%d", tenant, index, j)
}

// ArrivalTimesNs are the times of a run's arrivals' first writes: arrival
// j at a time drawn in the j-th of arrivals equal slices of [0, stopNs),
// from the run's seed alone, so that the plan generator can aim faults at
// them (faultplan.Knobs.AnchorsNs) and a plan's faults never move them.
func ArrivalTimesNs(seed uint64, arrivals int, stopNs int64) []int64 {
	if arrivals <= 0 || stopNs <= 0 {
		return nil
	}
	r := prng.Derive(seed, "arrivals")
	slice := max(stopNs/int64(arrivals), 1)
	out := make([]int64, arrivals)
	for j := range out {
		out[j] = min(int64(j)*slice+r.Int63nRange(0, slice-1), stopNs-1)
	}
	return out
}

// scheduleArrival schedules the client's next arrival, if any is left:
// the client makes arrivals index, index+Clients, ...
func (p *proc) scheduleArrival() {
	j := p.index + p.arrivals.started*p.w.cfg.Clients
	if j >= len(p.w.arrivalsNs) {
		return
	}
	p.arrivals.started++
	p.env.AfterNs(max(p.w.arrivalsNs[j]-p.env.NowNs(), 1), func() { p.arrive(j) })
}

// arrivalSecondNs draws the time from an arrival's first write to its
// second: a third within a millisecond (both in one group-commit window
// or pipeline), a third within 5 ms, a third up to ArrivalSecondMaxNs.
func arrivalSecondNs(r *prng.Rand) int64 {
	switch r.Intn(3) {
	case 0:
		return r.Int63nRange(0, 1_000_000)
	case 1:
		return r.Int63nRange(1_000_000, 5_000_000)
	}
	return r.Int63nRange(5_000_000, ArrivalSecondMaxNs)
}

// arrive makes arrival j: its first write now, its second later, then the
// client's next arrival.
func (p *proc) arrive(j int) {
	tenant := arrivalTenant(p.tenant, p.index, j)
	ent, n := p.entity(p.draws.arrivals)
	stream := p.stream(p.draws.arrivals)
	second := arrivalSecondNs(p.draws.arrivals)
	p.arrivalWrite(tenant, stream, ent, n)
	p.env.AfterNs(max(second, 1), func() { p.arrivalWrite(tenant, stream, ent, n) })
	p.scheduleArrival()
}

// arrivalWrite invokes one write to entity (entity key number n) on
// stream in tenant's scope, drawn from the client's next operation slot,
// unless the client has too many calls open or the fault phase is over.
func (p *proc) arrivalWrite(tenant, stream, entity string, n int) {
	now := p.env.NowNs()
	if now >= p.w.cfg.StopNs || p.open >= p.w.cfg.InFlightMax+arrivalWritesMax {
		return
	}
	slot := p.slots.drawn
	p.slots.drawn++
	p.slots.skipping = !p.w.keepsOp(p.index, slot)
	r := p.draws.slot(slot)
	var ws *writeSpec
	switch r.Intn(5) {
	case 0:
		ws = p.newCommitOf(r, properties.HistoryCommit, stream, entity, n)
	case 1:
		ws = p.newCommitOf(r, properties.HistoryCommitIf, stream, entity, n)
	case 2:
		ws = p.newEventOf(properties.HistoryPublish, stream, entity)
	case 3:
		ws = p.newEventOf(properties.HistoryPublishIf, stream, entity)
	default:
		ws = p.newEventOf(properties.HistoryEnqueue, stream, entity)
	}
	ws.tenant = tenant
	p.write(now, ws, 0)
	p.slots.skipping = false
}

// tenantOf is the tenant ws writes to: its own, else the client's.
func (p *proc) tenantOf(ws *writeSpec) string {
	if ws.tenant != "" {
		return ws.tenant
	}
	return p.tenant
}

// scopeOfWrite is the scope ws lands in.
func (p *proc) scopeOfWrite(ws *writeSpec) felix.Scope {
	sc := p.scopeOf(ws.stream, ws.entity)
	sc.Tenant = p.tenantOf(ws)
	return sc
}
