package workload

import (
	"fmt"
	"slices"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/simapi"
	"github.com/felixsim/felixsim/sim/world"
)

// Workload is a set of simulated Felix clients sharing one history.
type Workload struct {
	cfg     Config
	rec     recorder
	procs   []*proc
	retries int
	// arrivalsNs are the scope arrivals' times (ArrivalTimesNs).
	arrivalsNs []int64
}

// New checks cfg and builds the clients; put Specs() into the world at
// sim ids cfg.FirstSimID, cfg.FirstSimID+1, …
func New(cfg Config) (*Workload, error) {
	d := cfg.withDefaults()
	if err := d.validate(); err != nil {
		return nil, err
	}
	w := &Workload{cfg: d, rec: recorder{opsMax: d.OpsMax, spill: historySpill{dir: d.SpillDir}},
		arrivalsNs: ArrivalTimesNs(d.Seed, d.Arrivals, d.StopNs)}
	w.rec.blockOps = min(d.HeldOps, historyBlockOpsMax)
	w.rec.heldBlocksMax = d.HeldOps / w.rec.blockOps
	for i := 0; i < d.Clients; i++ {
		w.procs = append(w.procs, &proc{w: w, index: i, tenant: d.Tenants[i%len(d.Tenants)],
			tails: map[felix.Scope]uint64{}, cursors: map[felix.Scope]uint64{}})
	}
	return w, nil
}

// Config returns the workload's config with defaults filled in.
func (w *Workload) Config() Config { return w.cfg }

// Specs are the client processes' world slots, fault-exempt, in sim-id
// order from Config.FirstSimID.
func (w *Workload) Specs() []world.NodeSpec {
	var out []world.NodeSpec
	for _, p := range w.procs {
		p := p
		out = append(out, world.NodeSpec{Name: fmt.Sprintf("client-%d-%s", p.index, p.tenant), New: func() simapi.Process { return p }, FaultExempt: true})
	}
	return out
}

// History returns a copy of the history so far, what was streamed to disk
// read back; calls still open are pending. It fails only when the spill
// file could not be written or read (the error names it).
func (w *Workload) History() (*properties.History, error) { return w.rec.history() }

// ScopeHistory returns the part of History whose operations are of
// scopes, in id order, decoding no other scope's operations from disk:
// the end checks judge a long run's history a few scopes at a time.
func (w *Workload) ScopeHistory(scopes []felix.Scope) (*properties.History, error) {
	return w.rec.scopeHistory(scopes)
}

// Scopes are the scopes of the operations recorded so far, ascending.
func (w *Workload) Scopes() []felix.Scope { return slices.Clone(w.rec.scopes) }

// ScopeOps is how many operations of scope s were recorded so far.
func (w *Workload) ScopeOps(s felix.Scope) int {
	if i, found := slices.BinarySearchFunc(w.rec.scopes, s, felix.Scope.Compare); found {
		return w.rec.scopeOps[i]
	}
	return 0
}

// LatestNs is the latest invocation or completion recorded so far (0
// before the first operation).
func (w *Workload) LatestNs() int64 { return w.rec.latestNs }

// OpsRecorded counts the operations the history holds so far.
func (w *Workload) OpsRecorded() int { return w.rec.recorded() }

// Close releases the history's spill file; the workload must not run on.
func (w *Workload) Close() error { return w.rec.spill.close() }

// Open is the number of operations invoked and not yet completed.
func (w *Workload) Open() int {
	n := 0
	for _, p := range w.procs {
		n += p.open
	}
	return n
}

// Stats counts what the workload did beyond its history.
type Stats struct {
	// Retries is how many writes were re-sent after an unknown outcome.
	Retries int
	// RefusedFull counts invocations not made because the history was full.
	RefusedFull int
	// Slots is, per client, how many operations it drew (see
	// faultplan.ClientOps: retries and acks are not slots).
	Slots []int
	// Skipped counts the slots drawn but not invoked because
	// Config.KeepOps skips them.
	Skipped int
}

// Stats returns the counters so far.
func (w *Workload) Stats() Stats {
	s := Stats{Retries: w.retries, RefusedFull: w.rec.refused}
	for _, p := range w.procs {
		s.Slots = append(s.Slots, p.slots.drawn)
		s.Skipped += p.slots.skipped
	}
	return s
}
