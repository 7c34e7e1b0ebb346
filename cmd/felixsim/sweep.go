package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/felixsim/felixsim/sim/artifact"
	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/sweep"
	"github.com/felixsim/felixsim/sim/verdict"
	"github.com/felixsim/felixsim/tla"
)

// sweepHelp is `felixsim sweep --help` besides the flags.
var sweepHelp = help{
	usage: "sweep --seeds A..B [--jobs N] [--defects LIST] [--faults LIST] [--duration D] [--shard i/n] [--repeat-fraction F] [--json] [--junit FILE] [--out DIR] [--for DURATION] [--steer]",
	examples: []example{
		{cmd: "felixsim sweep --seeds 1..20 --duration 10s", does: "every CPU, a progress bar; then the failing and vacuous seeds and the coverage", exit: exitPass},
		{cmd: "felixsim sweep --seeds 1..3 --duration 2s --defects commit-as-two-records", does: "a planted bug: every seed fails", exit: exitSafety},
		{cmd: "felixsim sweep --seeds 1..16 --duration 2s --shard 2/8 --json > shard-2.json", does: "one of 8 CI jobs; then felixsim merge shard-*.json", exit: exitPass},
		{cmd: "felixsim sweep --seeds 1.. --duration 2s --for 5s --out nightly", does: "as many seeds as fit in 5 s (--for 8h overnight)", exit: exitPass},
	},
	exits: "the most serious of the seeds' verdicts: 1 a seed violated a safety invariant, 4 a liveness one (no seed a safety one),\n" +
		"3 no verdict and nothing violated: a seed crashed, ran out of time or ran twice differently, the sweep could not finish (a worker broke\n" +
		"the protocol, or it was interrupted: the report covers the seeds that finished), no seed ran (a shard holding none of the range),\n" +
		"or the report could not be saved (it is printed first); 0 no seed failed; 2 bad usage (nothing ran)",
}

// progressLineEvery is how often a sweep whose stderr is not a terminal
// prints a progress line.
const progressLineEvery = 10 * time.Second

// sweepArgs is what `felixsim sweep`'s flags ask for.
type sweepArgs struct {
	opts   sweep.Options
	asJSON bool
	junit  string
	outDir string
	force  bool
}

// parseSweepArgs reads `felixsim sweep`'s flags into sweep options,
// validated; done says the command is over (help printed, or bad usage
// reported) with exit code code. It is the one parser of those flags: the
// Kubernetes recipe's test (docs/k8s) runs the recipe's command line
// through it.
func parseSweepArgs(args []string, stdout, stderr io.Writer) (sa sweepArgs, code int, done bool) {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	b := newBounds(fs)
	seeds := fs.String("seeds", "", "seeds to run: A..B, or A.. with --for (default 1.. with --for); seeds are 1..2^64-1")
	jobs := b.Int("jobs", min(runtime.NumCPU(), sweep.JobsMax), 1, sweep.JobsMax, "worker processes at once, one seed each")
	defects := fs.String("defects", "none", "planted broker bugs every run gets: none, or a comma-separated list of "+runner.DefectNames())
	faults := fs.String("faults", "all", "fault kinds every run may draw: all, all,operator, none, or a comma-separated list (felixsim run --list-faults)")
	duration := b.Duration("duration", time.Duration(runner.DurationNsDefault), time.Nanosecond, durationMax, "each run's simulated fault phase")
	shard := fs.String("shard", "1/1", "run part i of n: every n-th seed of the range, starting at its i-th (1 <= i <= n)")
	repeat := b.Float64("repeat-fraction", 0.05, 0, 1, "share of seeds (picked by seed) run twice in their process with the trace hashes compared")
	forDur := b.Duration("for", 0, 0, durationMax, "stop starting seeds after this much wall time, e.g. 8h (0: run the whole range)")
	seedTimeout := b.Duration("seed-timeout", 10*time.Minute, 0, durationMax, "wall time one seed may take before it is stopped and reported (0: no limit)")
	fs.BoolVar(&sa.asJSON, "json", false, "print the report as one JSON object instead of the table")
	fs.StringVar(&sa.junit, "junit", "", "also write the report as JUnit XML to this file (for CI test reports); checked writable before any seed runs")
	fs.StringVar(&sa.outDir, "out", "", "write report.json, report.xml and each failing seed's run output (seed-N.json) to this directory; checked writable before any seed runs")
	binary := fs.String("binary", "", "the felixsim binary the workers run (default: this one)")
	fs.BoolVar(&sa.force, "force", false, "write into an --out directory that exists and holds files")
	steer := fs.Bool("steer", false, fmt.Sprintf("steer toward unvisited model states: seeds in rounds of %d, each run with a steering arm (felixsim run --steer) drawn by the model states the arms found first so far (docs/sweep.md)", sweep.SteerRoundSeeds))
	if code, done := parseFlags(fs, args, sweepHelp, stdout, stderr); done {
		return sa, code, true
	}
	err := b.check()
	var opts sweep.Options
	if err == nil {
		opts, err = sweepOptions(*seeds, *shard, *forDur, *faults, *defects, *binary)
	}
	if err != nil {
		return sa, usageError(stderr, "sweep", err), true
	}
	opts.Jobs, opts.Duration, opts.RepeatFraction, opts.SeedTimeout, opts.OutDir = *jobs, *duration, *repeat, *seedTimeout, sa.outDir
	if opts.Steer = *steer; opts.Steer {
		opts.SteerArms = faultplan.SteerArmNames()
	}
	if err := opts.Validate(); err != nil {
		return sa, usageError(stderr, "sweep", err), true
	}
	sa.opts = opts
	return sa, exitPass, false
}

// sweepCommand is `felixsim sweep`: it parses flags into sweep.Options,
// runs the sweep with a progress display on stderr, and prints the report.
func sweepCommand(args []string, stdout, stderr io.Writer) int {
	sa, code, done := parseSweepArgs(args, stdout, stderr)
	if done {
		return code
	}
	opts := sa.opts
	if err := reportOutputs(sa.junit, sa.outDir).Check(sa.force); err != nil {
		return usageError(stderr, "sweep", fmt.Errorf("%w (nothing ran)", err))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	finish := showProgress(&opts, stderr)
	rep, err := sweep.Run(ctx, opts)
	finish()
	if rep == nil {
		fmt.Fprintf(stderr, "felixsim sweep: %v (exit %d)\n", err, exitIncomplete)
		return exitIncomplete
	}
	v := verdict.Worst(rep.Verdict(), writeReport(rep, sa.asJSON, sa.junit, sa.outDir, stdout, stderr, "sweep"))
	if err != nil {
		v = verdict.Worst(v, verdict.NoVerdict)
		fmt.Fprintf(stderr, "felixsim sweep: %v after %d seeds; the report above covers them (exit %d)\n", err, rep.SeedsRun, v.ExitCode())
	}
	noteVerdict(rep, "sweep", v, stderr)
	return v.ExitCode()
}

// noteVerdict says on stderr why a finished sweep's (or merge's) report
// has no verdict when no seed ran (a shard that holds none of the range's
// seeds judged nothing).
func noteVerdict(rep *sweep.Report, name string, v verdict.Verdict, stderr io.Writer) {
	if rep.SeedsRun == 0 {
		fmt.Fprintf(stderr, "felixsim %s: no verdict: no seed ran (exit %d)\n", name, v.ExitCode())
	}
}

// reportOutputs are a sweep report's output files: the --junit file and
// the --out directory's report.json, report.xml and seed-N.json files.
func reportOutputs(junit, outDir string) *artifact.Outputs {
	var o artifact.Outputs
	o.File("--junit", junit)
	o.Dir("--out", outDir, sweep.ReportJSONFile, sweep.ReportXMLFile)
	return &o
}

// sweepOptions reads the flags that need parsing; the fault and defect
// lists are checked here so a typo fails before any worker starts.
func sweepOptions(seeds, shard string, forDur time.Duration, faults, defects, binary string) (sweep.Options, error) {
	if seeds == "" && forDur > 0 {
		seeds = "1.."
	}
	if seeds == "" {
		return sweep.Options{}, fmt.Errorf("--seeds is required (A..B, or A.. with --for)")
	}
	rg, err := sweep.ParseRange(seeds)
	if err != nil {
		return sweep.Options{}, fmt.Errorf("--seeds: %w", err)
	}
	sh, err := sweep.ParseShard(shard)
	if err != nil {
		return sweep.Options{}, fmt.Errorf("--shard: %w", err)
	}
	fset, err := runner.ParseFaults(faults)
	if err != nil {
		return sweep.Options{}, fmt.Errorf("--faults: %w", err)
	}
	if _, err := runner.ParseDefects(defects); err != nil {
		return sweep.Options{}, fmt.Errorf("--defects: %w", err)
	}
	if binary == "" {
		if binary, err = os.Executable(); err != nil {
			return sweep.Options{}, fmt.Errorf("cannot find this felixsim binary for the workers (give --binary): %w", err)
		}
	}
	var points []string
	for _, d := range runner.CoverageDeclared(fset) {
		points = append(points, string(d.Point))
	}
	return sweep.Options{Binary: binary, Seeds: rg, Shard: sh, For: forDur, Faults: faults, Defects: defects, Points: points,
		CountModelStates: countModelStates}, nil
}

// countModelStates counts a sweep's visited states against the bound of
// each group shape they hold (tla.CompareStates): a sweep.ModelStatesCounter.
func countModelStates(codes []uint64) (reachable, visited int, shapes []string) {
	ps := make([]tla.ProjectedState, len(codes))
	for i, c := range codes {
		ps[i] = tla.ProjectedState(c)
	}
	c := tla.CompareStates(ps, false)
	for _, s := range c.Shapes {
		changed := ""
		if s.Reconfigured {
			changed = ", membership changed"
		}
		shapes = append(shapes, fmt.Sprintf("groups of %d%s: %d of %d (bound: %s), %d model gaps", s.Members, changed, s.Visited, s.Reachable, s.Bound, s.Gaps))
	}
	return c.Reachable, c.Visited, shapes
}

// showProgress sets opts.Progress to draw a live bar when stderr is a
// terminal, else to print a plain line every progressLineEvery; the
// returned function ends the display.
func showProgress(opts *sweep.Options, stderr io.Writer) (finish func()) {
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return progressBar(opts, f)
	}
	last := time.Now()
	var p sweep.Progress
	opts.Progress = func(now sweep.Progress) {
		p = now
		if time.Since(last) >= progressLineEvery {
			last = time.Now()
			fmt.Fprintf(stderr, "sweep: %s\n", p)
		}
	}
	return func() {
		if p.Done > 0 {
			fmt.Fprintf(stderr, "sweep: %s\n", p)
		}
	}
}

// progressBar draws the sweep on a terminal: seeds done, seeds/s, failing
// seeds so far and the time left.
func progressBar(opts *sweep.Options, w io.Writer) (finish func()) {
	total := int64(-1) // an open range: a spinner
	if n, known := (sweep.Schedule{Range: opts.Seeds, Shard: opts.Shard}).Count(); known {
		total = int64(n)
	}
	bar := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("sweep"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("seeds"),
		progressbar.OptionSetPredictTime(false), // the description shows sweep's ETA, which knows --for
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetWidth(30),
	)
	opts.Progress = func(p sweep.Progress) {
		eta := "?"
		if d, ok := p.ETA(); ok {
			eta = d.String()
		}
		bar.Describe(fmt.Sprintf("sweep: %d failing, ETA %s", p.Failures, eta))
		_ = bar.Set64(int64(p.Done)) // the bar's own write errors do not stop a sweep
	}
	return func() {
		_ = bar.Finish()
		fmt.Fprintln(w)
	}
}

// reportFile is a file a report is written to, and its encoder.
type reportFile struct {
	path  string
	write func(io.Writer) error
}

// writeReport prints rep (table or JSON) to stdout first, so the results
// reach the user whatever happens next, then writes the --junit and --out
// files; it returns Pass, or NoVerdict when an output could not be
// written (each failure named on stderr).
func writeReport(rep *sweep.Report, asJSON bool, junit, outDir string, stdout, stderr io.Writer, name string) verdict.Verdict {
	v := verdict.Pass
	write := rep.WriteText
	if asJSON {
		write = rep.WriteJSON
	}
	if err := write(stdout); err != nil {
		fmt.Fprintf(stderr, "felixsim %s: the report was not printed: %v\n", name, err)
		v = verdict.NoVerdict
	}
	files := []reportFile{{junit, rep.WriteJUnit}}
	if outDir != "" {
		files = append(files, reportFile{filepath.Join(outDir, sweep.ReportJSONFile), rep.WriteJSON},
			reportFile{filepath.Join(outDir, sweep.ReportXMLFile), rep.WriteJUnit})
	}
	for _, f := range files {
		if f.path == "" {
			continue
		}
		if err := writeFile(f.path, f.write); err != nil {
			fmt.Fprintf(stderr, "felixsim %s: %s not written: %v; the report above stands\n", name, f.path, err)
			v = verdict.NoVerdict
		}
	}
	return v
}

// writeFile creates path and fills it with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}
