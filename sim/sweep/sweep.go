package sweep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Options describe one sweep; build them by field name.
type Options struct {
	// Binary is the felixsim executable each worker runs.
	Binary string
	// Seeds is the range to sweep and Shard the part of it this sweep runs.
	Seeds Range
	Shard Shard
	// Jobs is how many worker processes run at once.
	Jobs int
	// Duration, Faults and Defects are passed to every run as its
	// --duration, --faults and --defects.
	Duration time.Duration
	Faults   string
	Defects  string
	// RepeatFraction (0..1) of the seeds run twice with hashes compared.
	RepeatFraction float64
	// For stops dispatching seeds once this much wall time has passed
	// (0: run the whole range); the seeds already running finish.
	For time.Duration
	// SeedTimeout bounds one seed's wall time (0: no bound); a seed past
	// it is stopped and reported as an InvariantSeedTimeout failure.
	SeedTimeout time.Duration
	// Points are the coverage points a run may count: the report lists
	// each with its total over the seeds, zero included, so that a point
	// no seed reached shows as never hit (cmd/felixsim passes
	// runner.CoverageDeclared's).
	Points []string
	// OutDir, when set, receives seed-N.json, the run's own JSON output,
	// for every failing seed.
	OutDir string
	// Progress, when set, is called after every seed, from one goroutine.
	Progress func(Progress)
	// Steer runs the seeds in rounds, each seed with one of SteerArms
	// (`felixsim run --steer`), weighted toward the arms that found model
	// states the sweep had not visited (steer.go).
	Steer     bool
	SteerArms []string
	// CountModelStates counts the seeds' visited states (sorted codes)
	// against the bound of each group shape they hold: how many states
	// those bounds hold and how many of them were visited, and a line per
	// shape (cmd/felixsim passes tla.CompareStates's); nil: not counted.
	CountModelStates ModelStatesCounter
}

// JobsMax bounds the worker processes of one sweep.
const JobsMax = 256

// Validate refuses options no sweep can honour, naming the field and why.
func (o *Options) Validate() error {
	switch {
	case o.Binary == "":
		return fmt.Errorf("sweep refused: no felixsim binary to run")
	case o.Jobs < 1 || o.Jobs > JobsMax:
		return fmt.Errorf("--jobs %d refused: need 1..%d", o.Jobs, JobsMax)
	case o.Seeds.First == 0:
		return fmt.Errorf("--seeds refused: seeds start at 1")
	case o.Seeds.Open && o.For <= 0:
		return fmt.Errorf("--seeds %s refused: an open range needs --for to end it", o.Seeds)
	case o.Duration <= 0:
		return fmt.Errorf("--duration %s refused: must be positive", o.Duration)
	case !(o.RepeatFraction >= 0 && o.RepeatFraction <= 1):
		return fmt.Errorf("--repeat-fraction %v refused: need 0..1", o.RepeatFraction)
	case o.For < 0 || o.SeedTimeout < 0:
		return fmt.Errorf("--for %s, --seed-timeout %s refused: negative", o.For, o.SeedTimeout)
	case o.Steer && (len(o.SteerArms) == 0 || len(o.SteerArms) > SteerArmsMax):
		return fmt.Errorf("--steer refused: %d steering arms, need 1..%d", len(o.SteerArms), SteerArmsMax)
	case o.Faults == "" || o.Defects == "" || strings.ContainsAny(o.Faults+o.Defects, " \t\n"):
		return fmt.Errorf("--faults %q, --defects %q refused: each must be a list without spaces", o.Faults, o.Defects)
	}
	return nil
}

// ErrInterrupted marks a sweep stopped before its end by its context; the
// report it returns with holds the seeds that finished.
var ErrInterrupted = errors.New("sweep interrupted")

// Run sweeps the seeds: Jobs worker processes, one seed each at a time,
// seeds dispatched in order until the schedule or the time (For) runs out.
// It returns the report; an error means the options were refused (the
// report is nil), a worker broke the protocol, or the context ended the
// sweep (ErrInterrupted); with either of the last two the report, not
// Complete, covers the seeds that finished.
func Run(ctx context.Context, o Options) (*Report, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sched := Schedule{Range: o.Seeds, Shard: o.Shard}
	seeds := make(chan job)
	results := make(chan seedResult, o.Jobs) // cap: one per worker
	errs := make(chan error, o.Jobs)         // cap: one per worker
	var wg sync.WaitGroup
	for range o.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := o.work(ctx, seeds, results); err != nil {
				errs <- err
				cancel() // the other workers stop too
			}
		}()
	}
	var st *steerRounds
	if o.Steer {
		st = newSteerRounds(sched, o.SteerArms)
		go o.dispatchSteered(ctx, sched, seeds, st.weightsCh)
	} else {
		go o.dispatch(ctx, sched, seeds)
	}
	go func() { wg.Wait(); close(results); close(errs) }()
	rep := o.newReport()
	total, _ := sched.Count()
	var broke error
	for res := range results {
		if err := o.record(rep, res); err != nil && broke == nil {
			broke = err
			cancel()
		}
		if st != nil {
			st.add(res)
		}
		if o.Progress != nil {
			o.Progress(o.progress(rep, total, start))
		}
	}
	for err := range errs {
		stopped := errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) // the sweep's end, not the worker's fault
		if broke == nil && !stopped {
			broke = err
		}
	}
	rep.sortFailures()
	rep.sortVacuous()
	if st != nil {
		rep.SteerArms = st.s.arms
	}
	rep.CountModelStates(o.CountModelStates)
	rep.Seconds = time.Since(start).Seconds()
	rep.JobSeconds = rep.Seconds * float64(o.Jobs)
	rep.Complete = rep.SeedsRun == total && !sched.Range.Open
	if broke != nil {
		rep.Complete = false
		return rep, broke // the seeds that finished, for the user to see
	}
	if ctx.Err() != nil {
		rep.Complete = false
		return rep, ErrInterrupted
	}
	return rep, nil
}

// deadline is the channel that fires when the sweep's time (Options.For)
// is up (nil: never), and the function that stops its timer.
func (o *Options) deadline() (<-chan time.Time, func()) {
	if o.For <= 0 {
		return nil, func() {}
	}
	t := time.NewTimer(o.For)
	return t.C, func() { t.Stop() }
}

// dispatch sends the schedule's seeds in order until it ends, the time
// is up or the sweep is cancelled, then closes seeds.
func (o *Options) dispatch(ctx context.Context, sched Schedule, seeds chan<- job) {
	defer close(seeds)
	deadline, stop := o.deadline()
	defer stop()
	for s, ok := sched.First(); ok; s, ok = sched.Next(s) {
		select {
		case seeds <- job{seed: s, arm: -1}:
		case <-deadline:
			return
		case <-ctx.Done():
			return
		}
	}
}

// work runs seeds until the channel closes; a protocol error (or the
// sweep's end) stops it and is returned.
func (o *Options) work(ctx context.Context, seeds <-chan job, results chan<- seedResult) error {
	for s := range seeds {
		res, err := o.runSeed(ctx, s)
		if err != nil {
			return err
		}
		results <- res
	}
	return nil
}

// newReport is the empty report of this sweep.
func (o *Options) newReport() *Report {
	rep := &Report{Format: ReportFormat, Seeds: o.Seeds.String(), Shard: o.Shard.String(), Duration: o.Duration.String(),
		Faults: o.Faults, Defects: o.Defects, RepeatFraction: o.RepeatFraction, Failures: []Failure{},
		VacuousSeeds: []VacuousSeed{}, Coverage: map[string]uint64{}, Jobs: o.Jobs, Shards: 1}
	for _, p := range o.Points {
		rep.Coverage[p] = 0
	}
	return rep
}

// record adds one seed's outcome to rep (its failure, its vacuous reason,
// its coverage counts), and keeps a failing seed's output
// in OutDir.
func (o *Options) record(rep *Report, res seedResult) error {
	rep.SeedsRun++
	rep.LastSeed = max(rep.LastSeed, res.seed)
	rep.CPUSeconds += res.cpuSeconds
	if res.repeated {
		rep.SeedsRepeated++
	}
	if res.vacuous != "" {
		rep.Vacuous++
		rep.VacuousSeeds = append(rep.VacuousSeeds, VacuousSeed{Seed: res.seed, Reason: res.vacuous})
	}
	rep.addModelStates(res.states)
	if res.counts != nil {
		rep.CoverageSeeds++
		if err := addCounts(rep.Coverage, res.counts); err != nil {
			return fmt.Errorf("seed %d: %w", res.seed, err)
		}
	}
	if res.failure == nil {
		return nil
	}
	rep.Failures = append(rep.Failures, *res.failure)
	if o.OutDir == "" {
		return nil
	}
	path := filepath.Join(o.OutDir, fmt.Sprintf("seed-%d.json", res.seed))
	if err := os.WriteFile(path, res.stdout, 0o644); err != nil {
		return fmt.Errorf("sweep: keep seed %d's output: %w", res.seed, err)
	}
	return nil
}

// progress is the sweep's progress now.
func (o *Options) progress(rep *Report, total uint64, start time.Time) Progress {
	p := Progress{Done: rep.SeedsRun, Total: total, Failures: len(rep.Failures), Elapsed: time.Since(start)}
	if o.For > 0 {
		p.TimeLeft = max(o.For-p.Elapsed, 0)
	}
	return p
}
