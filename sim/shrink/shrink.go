package shrink

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/artifact"
	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/runner"
)

// Defaults and caps of Options.
const (
	BudgetDefault        = 60 * time.Second
	CandidatesMaxDefault = 2000
	JobsMax              = 64
	// RoundsMax bounds the passes over faults, operations, magnitudes
	// and duration; a pass that changes nothing ends the search sooner.
	RoundsMax = 4
	// DurationNsMin is the shortest fault phase the duration search tries.
	DurationNsMin = 100_000_000
)

// Options say what to shrink and how hard to try; build them by name.
type Options struct {
	// Run is the failing run: its Plan (nil: the plan its seed draws),
	// topology and defects. Shrink runs it first, in this process.
	Run runner.Options
	// Saved is the run description of the plan file Run was loaded from
	// (zero for a seed): the first run must reproduce the trace hash it
	// records, or the shrink is refused (it would shrink another run).
	Saved artifact.Meta
	// Binary is the felixsim executable each candidate runs in, as
	// `felixsim run --plan FILE --json`, one process per candidate; the
	// candidate's plan file carries Run's whole run description.
	Binary string
	// Invariant is what the shrunk run must still violate; "" takes the
	// failing run's decisive invariant (the first of its worst family).
	Invariant properties.InvariantName
	// Jobs is how many candidates run at once (0: 1). The result does not
	// depend on it: candidates are judged as if run in order.
	Jobs int
	// Budget bounds the whole shrink's wall time, the final re-run
	// included (0: BudgetDefault); the search stops early to leave time
	// for the re-run.
	Budget time.Duration
	// CandidatesMax bounds the candidate runs (0: CandidatesMaxDefault).
	CandidatesMax int
	// ArtifactDir, when set, receives the verified re-run as a saved run
	// (sim/artifact: the shrunk plan with its revision, topology, defects
	// and expected trace hash, the history, report, trace and timeline),
	// so `felixsim replay ArtifactDir` re-runs it hash-checked.
	ArtifactDir string
	// Progress, when set, is called after every batch of candidates,
	// from the goroutine that called Shrink.
	Progress func(Progress)
}

// Validate refuses options no shrink can honour, naming the field and why.
func (o *Options) Validate() error {
	switch {
	case o.Binary == "":
		return fmt.Errorf("shrink refused: no felixsim binary to run candidates in")
	case o.Jobs < 0 || o.Jobs > JobsMax:
		return fmt.Errorf("--jobs %d refused: need 1..%d", o.Jobs, JobsMax)
	case o.Budget < 0:
		return fmt.Errorf("--budget %s refused: negative", o.Budget)
	case o.CandidatesMax < 0:
		return fmt.Errorf("--candidates %d refused: negative", o.CandidatesMax)
	}
	if o.Invariant != "" {
		if _, err := properties.LookupInvariant(o.Invariant); err != nil {
			return fmt.Errorf("--invariant: %w", err)
		}
	}
	return o.Run.Validate()
}

// Progress is the search's state after a batch of candidates.
type Progress struct {
	Phase      string
	Candidates int
	Best       Size
	Elapsed    time.Duration
	Budget     time.Duration
}

// Size measures a run: its plan's faults, the operations its workload
// invoked (retries and group acks included) and its fault phase.
type Size struct {
	Faults, Ops int
	DurationNs  int64
}

// Total is faults plus operations, the measure the search reduces.
func (s Size) Total() int { return s.Faults + s.Ops }

// Result is a finished shrink.
type Result struct {
	// Invariant is what the original and the shrunk run both violate.
	Invariant properties.InvariantName
	// Original is the failing run as given; Plan its shrunk plan.
	Original     Size
	OriginalPlan *faultplan.Plan
	Plan         *faultplan.Plan
	Shrunk       Size
	Candidates   int
	Rounds       int
	// Phases is where the search spent its candidates and time, in order.
	Phases []PhaseStat
	Wall   time.Duration
	// Stopped says why the search ended before it was done ("" when it
	// finished): the wall-time budget or the candidate cap. The plan is
	// then the smallest found, not necessarily 1-minimal.
	Stopped string
	// VerifiedRun is the shrunk plan re-run in this process (history kept);
	// VerifyError says why it does not count as verified ("" when it
	// violates Invariant with the trace hash the candidate had).
	VerifiedRun *runner.Result
	VerifyError string
}

// PhaseStat is one phase of the search: the candidates it ran, its wall
// time and the best size after it.
type PhaseStat struct {
	Name       string
	Candidates int
	Wall       time.Duration
	After      Size
}

// errStopped ends the search when a bound is reached; the best plan so
// far stands.
type errStopped struct{ why string }

func (e errStopped) Error() string { return "shrink stopped: " + e.why }

// shrinker is one search's state.
type shrinker struct {
	opts     Options
	run      runner.Options // Run with defaults, plan cleared
	target   properties.InvariantName
	dir      string
	start    time.Time
	deadline time.Time
	best     *faultplan.Plan
	bestOut  *outcome
	// smallest is the failing plan with the smallest run so far (see
	// noteSmallest); it is what Shrink returns.
	smallest    *faultplan.Plan
	smallestOut *outcome
	// scopes is the scope each slot of the failing run addressed (its
	// history, see slotScopes): what the focus and group phases go by.
	scopes map[opSlot]string
	// seen caches outcomes by plan text: a candidate is never run twice.
	seen       map[string]*outcome
	candidates int
	phase      string
	phases     []PhaseStat
	// runPlan runs one candidate (runWorker; a test's fake judges plans
	// without processes); name names its plan file.
	runPlan func(ctx context.Context, name string, p *faultplan.Plan) (*outcome, error)
}

// Shrink runs the failing run, then searches for a smaller plan that still
// violates the same invariant: the fault phase's duration (cut just past
// the operations the violation names, when it names any), the operations
// on other clients and scopes than the named ones (focus), the faults
// (the latest few alone, moved earlier; then ddmin), the fault schedule
// moved earlier, the workload's operations
// (ddmin over whole clients, then scopes, then every client's slots), the
// faults' magnitudes, in rounds until nothing changes or a bound is
// reached. The result is re-run in this process and checked before it is
// returned. An error means the shrink could not be trusted to run (the
// original passes, a worker refused a plan); reaching a bound is not one.
func Shrink(o Options) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	s, res, err := newShrinker(o)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(s.dir)
	res.Rounds, err = s.search()
	var stop errStopped
	if errors.As(err, &stop) {
		res.Stopped, err = stop.why, nil
	}
	if err != nil {
		return nil, err
	}
	s.noteSmallest(s.best, s.bestOut)
	res.Plan, res.Candidates, res.Phases = s.smallest, s.candidates, s.phases
	s.verify(res)
	res.Wall = time.Since(s.start)
	return res, nil
}

// newShrinker runs the original in this process and sets the search up.
func newShrinker(o Options) (*shrinker, *Result, error) {
	start := time.Now()
	if o.Jobs == 0 {
		o.Jobs = 1
	}
	if o.Budget == 0 {
		o.Budget = BudgetDefault
	}
	if o.CandidatesMax == 0 {
		o.CandidatesMax = CandidatesMaxDefault
	}
	withHistory := o.Run
	withHistory.KeepHistory = true // the history does not change the run, only what it returns
	base, err := runner.Run(withHistory)
	if err != nil {
		return nil, nil, err
	}
	if err := o.Saved.CheckReproduced(base.TraceHash); err != nil {
		return nil, nil, fmt.Errorf("shrink refused: %w", err)
	}
	target := o.Invariant
	if target == "" {
		target = base.Decisive()
	}
	baseOut := outcomeOf(base, time.Since(start))
	if !baseOut.fails(target) {
		return nil, nil, fmt.Errorf("shrink refused: %s does not violate %s (violations: %v): nothing to shrink", describeRun(o.Run, base.Plan), orNone(target), baseOut.invariants)
	}
	dir, err := os.MkdirTemp("", "felixsim-shrink-")
	if err != nil {
		return nil, nil, fmt.Errorf("shrink: %w", err)
	}
	run := base.Options // defaults filled in: workers get every flag explicitly
	run.Plan, run.KeepHistory, run.RecordTrace = nil, false, false
	s := &shrinker{opts: o, run: run, target: target, dir: dir, start: start, deadline: start.Add(o.Budget),
		best: base.Plan, bestOut: baseOut, smallest: base.Plan, smallestOut: baseOut, seen: map[string]*outcome{base.Plan.String(): baseOut},
		scopes: slotScopes(base.History, base.Plan, len(base.OpSlots))}
	s.runPlan = func(ctx context.Context, name string, p *faultplan.Plan) (*outcome, error) {
		return runWorker(ctx, o.Binary, dir, name, &s.run, p)
	}
	res := &Result{Invariant: target, Original: sizeOf(base.Plan, baseOut), OriginalPlan: base.Plan}
	return s, res, nil
}

func orNone(inv properties.InvariantName) string {
	if inv == "" {
		return "any invariant"
	}
	return string(inv)
}

func sizeOf(p *faultplan.Plan, o *outcome) Size {
	return Size{Faults: len(p.Faults), Ops: o.ops, DurationNs: p.DurationNs}
}

// search runs the phases in rounds; it returns the rounds run.
func (s *shrinker) search() (int, error) {
	if err := s.timed("duration", s.shrinkDuration); err != nil {
		return 0, err
	}
	if err := s.timed("focus", s.shrinkFocus); err != nil {
		return 0, err
	}
	phases := []struct {
		name string
		fn   func() error
	}{{"latest", s.shrinkLatest}, {"faults", s.shrinkFaults}, {"earlier", s.shrinkEarlier}, {"duration", s.shrinkDuration}, {"focus", s.shrinkFocus},
		{"operations", s.shrinkNoOps}, {"clients", s.shrinkClients}, {"scopes", s.shrinkScopes}, {"operations", s.shrinkOps},
		{"magnitudes", s.shrinkMagnitudes}, {"duration", s.shrinkDuration}}
	for round := 1; round <= RoundsMax; round++ {
		before := s.best.String()
		for _, ph := range phases {
			if err := s.timed(ph.name, ph.fn); err != nil {
				return round, err
			}
		}
		if s.best.String() == before {
			return round, nil
		}
	}
	return RoundsMax, nil
}

// timed runs one phase and records its stat.
func (s *shrinker) timed(name string, fn func() error) error {
	s.phase = name
	start, cands := time.Now(), s.candidates
	err := fn()
	s.phases = append(s.phases, PhaseStat{Name: name, Candidates: s.candidates - cands, Wall: time.Since(start), After: sizeOf(s.best, s.bestOut)})
	return err
}

// firstFailing runs candidate plans (Jobs at a time, in order) and returns
// the index of the first that violates the target, which becomes the best
// plan; -1 when none does. Plans already run are not run again.
func (s *shrinker) firstFailing(plans []*faultplan.Plan) (int, error) {
	for lo := 0; lo < len(plans); lo += s.opts.Jobs {
		hi := min(lo+s.opts.Jobs, len(plans))
		outs, err := s.runBatch(plans[lo:hi])
		if err != nil {
			return -1, err
		}
		for i, o := range outs {
			if o.fails(s.target) {
				s.best, s.bestOut = plans[lo+i], o
				s.noteSmallest(plans[lo+i], o)
				s.report()
				return lo + i, nil
			}
		}
		s.report()
	}
	return -1, nil
}

// noteSmallest keeps the failing plan whose run was smallest in faults
// plus operations. The search takes any failing candidate with fewer plan
// elements, and removing a fault can let the workload invoke more
// operations; the result is the smallest failing run seen, so it is never
// larger than the original.
func (s *shrinker) noteSmallest(p *faultplan.Plan, o *outcome) {
	if s.smallest == nil || sizeOf(p, o).Total() < sizeOf(s.smallest, s.smallestOut).Total() {
		s.smallest, s.smallestOut = p, o
	}
}

// runBatch runs plans at once, each in its own worker, and returns their
// outcomes in order.
func (s *shrinker) runBatch(plans []*faultplan.Plan) ([]*outcome, error) {
	outs := make([]*outcome, len(plans))
	errs := make([]error, len(plans))
	texts := make([]string, len(plans))
	var wg sync.WaitGroup
	ctx, cancel := context.WithDeadline(context.Background(), s.searchDeadline())
	defer cancel()
	for i, p := range plans {
		texts[i] = p.String()
		if o, ok := s.seen[texts[i]]; ok {
			outs[i] = o
			continue
		}
		if s.candidates >= s.opts.CandidatesMax {
			return nil, errStopped{fmt.Sprintf("the candidate cap (%d runs) was reached", s.opts.CandidatesMax)}
		}
		if ctx.Err() != nil {
			return nil, errStopped{s.budgetNote()}
		}
		s.candidates++
		wg.Add(1)
		go func(i int, p *faultplan.Plan, name string) {
			defer wg.Done()
			outs[i], errs[i] = s.runPlan(ctx, name, p)
		}(i, p, fmt.Sprintf("candidate-%d.plan", s.candidates))
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, errStopped{s.budgetNote()}
	}
	for i := range plans {
		if errs[i] != nil {
			return nil, fmt.Errorf("%w\ncandidate plan:\n%s", errs[i], texts[i])
		}
		s.seen[texts[i]] = outs[i]
	}
	return outs, nil
}

// searchDeadline is when the search must stop to leave the final re-run
// its time: the budget's end less three of the best run's wall time and
// half a second.
func (s *shrinker) searchDeadline() time.Time {
	return s.deadline.Add(-3*max(s.bestOut.wall, s.smallestOut.wall) - 500*time.Millisecond)
}

func (s *shrinker) budgetNote() string {
	return fmt.Sprintf("the wall-time budget (%s) ran out", s.opts.Budget)
}

func (s *shrinker) report() {
	if s.opts.Progress != nil {
		s.opts.Progress(Progress{Phase: s.phase, Candidates: s.candidates, Best: sizeOf(s.smallest, s.smallestOut),
			Elapsed: time.Since(s.start), Budget: s.opts.Budget})
	}
}

// verify re-runs the shrunk plan in this process and checks it violates
// the target with the trace hash its candidate run had.
func (s *shrinker) verify(res *Result) {
	o := s.run
	o.KeepHistory = true
	o.PlanPath, o.ArtifactDir = "", ""
	if s.opts.ArtifactDir != "" {
		o = artifact.Recording(o)
		o.ArtifactDir = s.opts.ArtifactDir // its reproduce line: felixsim replay DIR
	}
	o, err := o.WithPlan(s.smallest)
	if err == nil {
		res.VerifiedRun, err = runner.Run(o)
	}
	if err == nil && s.opts.ArtifactDir != "" {
		if err = artifact.Prepare(s.opts.ArtifactDir); err == nil {
			err = artifact.Write(s.opts.ArtifactDir, res.VerifiedRun, artifact.Revision())
		}
	}
	if err != nil {
		res.VerifyError = fmt.Sprintf("the shrunk plan could not be re-run and saved: %v", err)
		return
	}
	out := outcomeOf(res.VerifiedRun, 0)
	res.Shrunk = sizeOf(s.smallest, out)
	switch {
	case !out.fails(s.target):
		res.VerifyError = fmt.Sprintf("the re-run of the shrunk plan does not violate %s (violations: %v)", s.target, out.invariants)
	case out.traceHash != s.smallestOut.traceHash:
		res.VerifyError = fmt.Sprintf("the re-run's trace hash %s differs from the candidate run's %s: a run is not a function of its plan", out.traceHash, s.smallestOut.traceHash)
	}
}

// describeRun names a run for messages: its seed, or its plan.
func describeRun(o runner.Options, p *faultplan.Plan) string {
	if o.Plan != nil {
		return fmt.Sprintf("the plan for seed %d", p.Seed)
	}
	return fmt.Sprintf("seed %d", o.Seed)
}
