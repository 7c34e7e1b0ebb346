package main

import (
	"context"
	"errors"
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

	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/sweep"
)

// sweepHelp is `felixsim sweep --help` besides the flags.
var sweepHelp = help{
	usage: "sweep --seeds A..B [--jobs N] [--defects LIST] [--faults LIST] [--duration D] [--shard i/n] [--repeat-fraction F] [--json] [--junit FILE] [--out DIR] [--for DURATION]",
	examples: []string{
		"felixsim sweep --seeds 1..1000                         # every CPU, a progress bar; then the failing and vacuous seeds and the coverage totals",
		"felixsim sweep --seeds 1..3 --duration 2s --defects commit-as-two-records",
		"felixsim sweep --seeds 1..10000 --shard 2/8 --json > shard-2.json   # one of 8 CI jobs; then felixsim merge shard-*.json",
		"felixsim sweep --seeds 1.. --for 8h --out nightly      # as many seeds as fit in 8 hours",
	},
	exits: "0 no seed failed, 1 a seed failed, 2 bad usage, 3 the sweep could not finish (a worker broke the protocol, or it was interrupted: the report covers the seeds that finished)",
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
}

// parseSweepArgs reads `felixsim sweep`'s flags into sweep options,
// validated; done says the command is over (help printed, or bad usage
// reported) with exit code code. It is the one parser of those flags: the
// Kubernetes recipe's test (docs/k8s) runs the recipe's command line
// through it.
func parseSweepArgs(args []string, stdout, stderr io.Writer) (sa sweepArgs, code int, done bool) {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	seeds := fs.String("seeds", "", "seeds to run: A..B, or A.. with --for (default 1.. with --for)")
	jobs := fs.Int("jobs", runtime.NumCPU(), "worker processes at once, one seed each")
	defects := fs.String("defects", "none", "planted broker bugs every run gets: none or "+runner.DefectNames())
	faults := fs.String("faults", "all", "fault kinds every run may draw: all, all,operator, none, or a comma-separated list")
	duration := fs.Duration("duration", time.Duration(runner.DurationNsDefault), "each run's simulated fault phase")
	shard := fs.String("shard", "1/1", "run part i of n: every n-th seed of the range, starting at its i-th")
	repeat := fs.Float64("repeat-fraction", 0.05, "share of seeds (picked by seed) run twice in their process with the trace hashes compared")
	forDur := fs.Duration("for", 0, "stop starting seeds after this much wall time, e.g. 8h (0: run the whole range)")
	seedTimeout := fs.Duration("seed-timeout", 10*time.Minute, "wall time one seed may take before it is stopped and reported (0: no limit)")
	fs.BoolVar(&sa.asJSON, "json", false, "print the report as one JSON object instead of the table")
	fs.StringVar(&sa.junit, "junit", "", "also write the report as JUnit XML to this file (for CI test reports)")
	fs.StringVar(&sa.outDir, "out", "", "write report.json, report.xml and each failing seed's run output (seed-N.json) to this directory")
	binary := fs.String("binary", "", "the felixsim binary the workers run (default: this one)")
	if code, done := parseFlags(fs, args, sweepHelp, stdout, stderr); done {
		return sa, code, true
	}
	opts, err := sweepOptions(*seeds, *shard, *forDur, *faults, *defects, *binary)
	if err != nil {
		return sa, usageError(stderr, "sweep", err), true
	}
	opts.Jobs, opts.Duration, opts.RepeatFraction, opts.SeedTimeout, opts.OutDir = *jobs, *duration, *repeat, *seedTimeout, sa.outDir
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
	if sa.outDir != "" {
		if err := os.MkdirAll(sa.outDir, 0o755); err != nil {
			return usageError(stderr, "sweep", fmt.Errorf("--out: %w", err))
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	finish := showProgress(&opts, stderr)
	rep, err := sweep.Run(ctx, opts)
	finish()
	if err != nil && !errors.Is(err, sweep.ErrInterrupted) {
		fmt.Fprintf(stderr, "felixsim sweep: %v\n", err)
		return exitIncomplete
	}
	if code := writeReport(rep, sa.asJSON, sa.junit, sa.outDir, stdout, stderr, "sweep"); code != exitPass {
		return code
	}
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "felixsim sweep: %v after %d seeds\n", err, rep.SeedsRun)
		return exitIncomplete
	case !rep.OK():
		return exitSafety // a seed failed; each failure names its family
	}
	return exitPass
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
	return sweep.Options{Binary: binary, Seeds: rg, Shard: sh, For: forDur, Faults: faults, Defects: defects, Points: points}, nil
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

// writeReport prints rep (table or JSON) and writes the --junit and --out
// files; it returns exitPass, or exitIncomplete when a file cannot be written.
func writeReport(rep *sweep.Report, asJSON bool, junit, outDir string, stdout, stderr io.Writer, name string) int {
	files := []reportFile{{junit, rep.WriteJUnit}}
	if outDir != "" {
		files = append(files, reportFile{filepath.Join(outDir, "report.json"), rep.WriteJSON},
			reportFile{filepath.Join(outDir, "report.xml"), rep.WriteJUnit})
	}
	for _, f := range files {
		if f.path == "" {
			continue
		}
		if err := writeFile(f.path, f.write); err != nil {
			fmt.Fprintf(stderr, "felixsim %s: %v\n", name, err)
			return exitIncomplete
		}
	}
	write := rep.WriteText
	if asJSON {
		write = rep.WriteJSON
	}
	if err := write(stdout); err != nil {
		fmt.Fprintf(stderr, "felixsim %s: %v\n", name, err)
		return exitIncomplete
	}
	return exitPass
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
