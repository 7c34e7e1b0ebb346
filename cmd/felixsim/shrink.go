package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/artifact"
	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/shrink"
)

// shrinkHelp is `felixsim shrink --help` besides the flags.
var shrinkHelp = help{
	usage: "shrink SAVED-DIR | --plan FILE | --seed N [--defects LIST] [--nodes 3] [--streams 1] [--shards 4] [--duration 60s] [--faults LIST]\n       --out DIR [--invariant NAME] [--jobs 2] [--budget 60s] [--candidates 2000]",
	examples: []string{
		"felixsim shrink --seed 3 --defects commit-as-two-records --out /tmp/small   # then: felixsim replay /tmp/small",
		"felixsim run --seed 4 --defects stale-read --out /tmp/s4; felixsim shrink /tmp/s4 --out /tmp/s4-small",
		"felixsim shrink --seed 4 --defects stale-read --invariant " + string(properties.InvariantLinearizableRead) + " --budget 2m --out /tmp/s4",
		"felixsim shrink --plan old.plan --defects ack-before-quorum --jobs 1 --out /tmp/small   # a plan without meta lines: flags say how it ran",
	},
	positional: true,
	exits:      "0 shrunk, and a fresh run of the shrunk plan violates the same invariant; 2 bad usage;\n3 no verified result: the run given does not fail (or does not reproduce the trace hash its plan records), a worker broke the protocol, or the re-run of the shrunk plan did not fail as its candidate did",
}

// shrinkCommand is `felixsim shrink`: it parses flags into shrink.Options,
// shrinks with a progress line on a terminal, writes the shrunk plan and
// the listing to --out and prints the listing.
func shrinkCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("shrink", flag.ContinueOnError)
	seed := fs.Uint64("seed", 0, "the failing run's seed (or give a saved run's directory, or --plan)")
	planFile := fs.String("plan", "", "the failing run's plan file instead of a seed; its meta lines (felixsim run --out) give topology and defects")
	nodes := fs.Int("nodes", runner.BrokersDefault, "brokers in the cluster")
	streams := fs.Int("streams", runner.StreamsDefault, "streams in the cluster")
	shards := fs.Uint("shards", runner.ShardsDefault, "shards per stream")
	duration := fs.Duration("duration", time.Duration(runner.DurationNsDefault), "the failing run's simulated fault phase (with --seed)")
	faults := fs.String("faults", "all", "fault kinds the seed draws from (with --seed): all, all,operator, none, or a comma-separated list")
	defects := fs.String("defects", "none", "planted broker bugs the failing run had: none or "+runner.DefectNames())
	invariant := fs.String("invariant", "", "the invariant the shrunk run must still violate (default: the failing run's decisive one)")
	outDir := fs.String("out", "", "directory for the shrunk run, saved as `felixsim run --out` saves one (felixsim replay DIR re-runs it), with original-plan.txt and the listing shrink.txt")
	jobs := fs.Int("jobs", 2, "candidate runs at once, each in its own process (the result does not depend on it)")
	budget := fs.Duration("budget", shrink.BudgetDefault, "wall time for the whole shrink, the final re-run included")
	candidates := fs.Int("candidates", shrink.CandidatesMaxDefault, "most candidate runs")
	binary := fs.String("binary", "", "the felixsim binary candidates run in (default: this one)")
	if code, done := parseFlags(fs, args, shrinkHelp, stdout, stderr); done {
		return code
	}
	opts, err := shrinkOptions(fs, *seed, *planFile, *nodes, *streams, *shards, *duration, *faults, *defects, *binary)
	if err == nil && *outDir == "" {
		err = fmt.Errorf("--out is required: the directory the shrunk plan goes to")
	}
	if err == nil && (*jobs < 1 || *budget <= 0 || *candidates < 1) {
		err = fmt.Errorf("--jobs %d, --budget %s, --candidates %d refused: each must be positive", *jobs, *budget, *candidates)
	}
	opts.Invariant, opts.Jobs, opts.Budget, opts.CandidatesMax = properties.InvariantName(*invariant), *jobs, *budget, *candidates
	if err == nil {
		err = opts.Validate()
	}
	if err == nil {
		err = artifact.Prepare(*outDir)
	}
	opts.ArtifactDir = *outDir
	if err != nil {
		return usageError(stderr, "shrink", err)
	}
	finish := shrinkProgress(&opts, stderr)
	res, err := shrink.Shrink(opts)
	finish()
	if err != nil {
		fmt.Fprintf(stderr, "felixsim shrink: %s\n", strings.ReplaceAll(err.Error(), "\n", "\n  "))
		return exitIncomplete
	}
	return writeShrink(res, &opts, *outDir, stdout, stderr)
}

// shrinkOptions builds the failing run's options from a saved run's
// directory (positional), --plan or --seed. A saved plan's meta lines give
// its topology and defects; flags may not contradict them.
func shrinkOptions(fs *flag.FlagSet, seed uint64, planFile string, nodes, streams int, shards uint, duration time.Duration, faults, defects, binary string) (shrink.Options, error) {
	ro, err := runOptions(seed, nodes, streams, shards, duration, faults, defects)
	if err != nil {
		return shrink.Options{}, err
	}
	given := 0
	for _, set := range []bool{fs.NArg() > 0, planFile != "", flagSet(fs, "seed")} {
		if set {
			given++
		}
	}
	switch {
	case fs.NArg() > 1:
		return shrink.Options{}, fmt.Errorf("unexpected argument %q: give one saved run's directory", fs.Arg(1))
	case given != 1:
		return shrink.Options{}, fmt.Errorf("give the failing run once: a saved run's DIR (felixsim run --out DIR), --plan FILE or --seed N")
	case fs.NArg() == 1:
		planFile = filepath.Join(fs.Arg(0), artifact.PlanFile)
	}
	ro.ValidateTrace = true // as `felixsim run` validates by default
	var saved artifact.Meta
	if planFile != "" {
		if ro, saved, err = savedRun(fs, planFile, ro); err != nil {
			return shrink.Options{}, err
		}
	}
	if binary == "" {
		if binary, err = os.Executable(); err != nil {
			return shrink.Options{}, fmt.Errorf("cannot find this felixsim binary for the candidates (give --binary): %w", err)
		}
	}
	return shrink.Options{Run: ro, Saved: saved, Binary: binary}, nil
}

// savedRun loads a plan file into run options: every setting its run
// description records (a flag that disagrees is refused), the flags' for
// what an older plan does not record; and its meta, whose trace hash the
// shrink's first run must reproduce.
func savedRun(fs *flag.FlagSet, planFile string, flags runner.Options) (runner.Options, artifact.Meta, error) {
	return artifact.LoadRun(planFile, flags, func(name string) bool { return flagSet(fs, name) })
}

// Files shrink adds to the shrunk run's artifact directory.
const (
	originalPlanFile  = "original-plan.txt"
	shrinkListingFile = "shrink.txt"
)

// writeShrink saves the original plan and the listing beside the shrunk
// run's artifact, prints the listing and the replay command, and returns
// the exit code.
func writeShrink(res *shrink.Result, opts *shrink.Options, dir string, stdout, stderr io.Writer) int {
	var listing strings.Builder
	res.WriteListing(&listing)
	fmt.Fprintf(&listing, "saved: %s (plan %s, timeline %s)\nreplay: felixsim replay %s\n", dir,
		filepath.Join(dir, artifact.PlanFile), filepath.Join(dir, artifact.TimelineFile), dir)
	var original strings.Builder
	err := artifact.WritePlan(&original, res.OriginalPlan, artifact.MetaOf(opts.Run, artifact.Revision()))
	for _, f := range []struct{ name, text string }{{originalPlanFile, original.String()}, {shrinkListingFile, listing.String()}} {
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, f.name), []byte(f.text), 0o644)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "felixsim shrink: --out: %v\n", err)
		return exitIncomplete
	}
	fmt.Fprint(stdout, listing.String())
	if !res.Verified() {
		return exitIncomplete
	}
	return exitPass
}

// shrinkProgress shows the search on a terminal as one line rewritten in
// place; elsewhere it stays quiet. The returned function ends the line.
func shrinkProgress(opts *shrink.Options, stderr io.Writer) (finish func()) {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return func() {}
	}
	drawn := false
	opts.Progress = func(p shrink.Progress) {
		drawn = true
		fmt.Fprintf(f, "\rshrink: %-10s %4d candidates, best %d faults + %d operations over %.1f s; %.0f of %.0f s\x1b[K",
			p.Phase, p.Candidates, p.Best.Faults, p.Best.Ops, float64(p.Best.DurationNs)/1e9, p.Elapsed.Seconds(), p.Budget.Seconds())
	}
	return func() {
		if drawn {
			fmt.Fprintln(f)
		}
	}
}
