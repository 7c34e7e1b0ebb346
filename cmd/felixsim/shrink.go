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
	examples: []example{
		{cmd: "felixsim shrink --seed 3 --duration 10s --defects commit-as-two-records --out small", does: "then: felixsim replay small", exit: exitPass},
		{after: "felixsim run --seed 1 --duration 10s --fault-gap 600ms --defects stale-read --out s1", cmd: "felixsim shrink s1 --out s1-small",
			does: "a saved failing run", exit: exitPass},
		{cmd: "felixsim shrink --seed 1 --duration 10s --fault-gap 600ms --defects stale-read --invariant " + string(properties.InvariantLinearizable) + " --budget 2m --out s1-lin",
			does: "keep one invariant failing", exit: exitPass},
		{after: "felixsim run --seed 3 --duration 8s --defects ack-before-quorum --out seed3", cmd: "felixsim shrink --plan seed3/plan.txt --jobs 1 --out small3",
			does: "a saved plan file", exit: exitPass},
	},
	positional: true,
	exits:      "0 shrunk, and a fresh run of the shrunk plan violates the same invariant; 2 bad usage;\n3 no verified result: the run given does not fail (or does not reproduce the trace hash its plan records), a worker broke the protocol, or the re-run of the shrunk plan did not fail as its candidate did",
}

// shrinkCommand is `felixsim shrink`: it parses flags into shrink.Options,
// shrinks with a progress line on a terminal, writes the shrunk plan and
// the listing to --out and prints the listing.
func shrinkCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("shrink", flag.ContinueOnError)
	b := newBounds(fs)
	rf := addRunFlags(fs, b)
	planFile := fs.String("plan", "", "the failing run's plan file instead of a seed (it records the whole run: other run flags may only repeat it)")
	invariant := fs.String("invariant", "", "the invariant the shrunk run must still violate (default: the failing run's decisive one)")
	outDir := fs.String("out", "", "the `DIR` the shrunk run is saved to, as felixsim run --out saves one (felixsim replay DIR re-runs it), with original-plan.txt and the listing shrink.txt; a DIR that exists and holds files is refused unless --force, and it may not hold the run given")
	jobs := b.Int("jobs", 2, 1, shrink.JobsMax, "candidate runs at once, each in its own process (the result does not depend on it)")
	force := fs.Bool("force", false, "write into an --out directory that exists and holds files (its artifact files are replaced)")
	budget := b.Duration("budget", shrink.BudgetDefault, time.Second, durationMax, "wall time for the whole shrink, the final re-run included")
	candidates := b.Int("candidates", shrink.CandidatesMaxDefault, 1, shrink.CandidatesMaxDefault*100, "most candidate runs")
	binary := fs.String("binary", "", "the felixsim binary candidates run in (default: this one)")
	if code, done := parseFlags(fs, args, shrinkHelp, stdout, stderr); done {
		return code
	}
	err := b.check()
	var opts shrink.Options
	if err == nil {
		opts, err = shrinkOptions(fs, rf, *planFile, *binary)
	}
	if err == nil && *outDir == "" {
		err = fmt.Errorf("--out is required: the directory the shrunk plan goes to")
	}
	opts.Invariant, opts.Jobs, opts.Budget, opts.CandidatesMax = properties.InvariantName(*invariant), *jobs, *budget, *candidates
	if err == nil {
		err = opts.Validate()
	}
	if err == nil {
		err = shrinkOutputs(fs, *planFile, *outDir).Check(*force)
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

// shrinkOutputs are the shrink's input (the saved run's directory or
// plan file) and its --out directory, which must be apart: an input is
// never overwritten.
func shrinkOutputs(fs *flag.FlagSet, planFile, outDir string) *artifact.Outputs {
	var o artifact.Outputs
	o.Dir("--out", outDir, artifact.Files...)
	o.Input("--plan", planFile)
	if fs.NArg() == 1 {
		o.Input("the saved run", fs.Arg(0))
	}
	return &o
}

// shrinkOptions builds the failing run's options from a saved run's
// directory (positional), --plan or --seed. A saved plan's meta lines give
// its topology and defects; flags may not contradict them.
func shrinkOptions(fs *flag.FlagSet, rf *runFlags, planFile, binary string) (shrink.Options, error) {
	ro, err := rf.options()
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
	originalPlanFile  = artifact.OriginalPlanFile
	shrinkListingFile = artifact.ShrinkListingFile
)

// writeShrink prints the listing and the replay command first, then
// saves the original plan and the listing beside the shrunk run's
// artifact, and returns the exit code: 0 for a verified shrink whose
// files were all written, else 3 (each file not written named).
func writeShrink(res *shrink.Result, opts *shrink.Options, dir string, stdout, stderr io.Writer) int {
	var listing strings.Builder
	res.WriteListing(&listing)
	fmt.Fprintf(&listing, "saved: %s (plan %s, timeline %s)\nreplay: felixsim replay %s\n", dir,
		filepath.Join(dir, artifact.PlanFile), filepath.Join(dir, artifact.TimelineFile), runner.ShellQuote(dir))
	fmt.Fprint(stdout, listing.String())
	code := exitPass
	if !res.Verified() {
		code = exitIncomplete
	}
	var original strings.Builder
	if err := artifact.WritePlan(&original, res.OriginalPlan, artifact.MetaOf(opts.Run, artifact.Revision())); err != nil {
		fmt.Fprintf(stderr, "felixsim shrink: %s not written: %v (exit %d)\n", originalPlanFile, err, exitIncomplete)
		return exitIncomplete
	}
	for _, f := range []struct{ name, text string }{{originalPlanFile, original.String()}, {shrinkListingFile, listing.String()}} {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, []byte(f.text), 0o644); err != nil {
			fmt.Fprintf(stderr, "felixsim shrink: --out %s not written: %v; the listing above stands (exit %d)\n", path, err, exitIncomplete)
			code = exitIncomplete
		}
	}
	return code
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
