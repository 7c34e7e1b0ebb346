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
	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/shrink"
)

// shrinkHelp is `felixsim shrink --help` besides the flags.
var shrinkHelp = help{
	usage: "shrink --seed N [--defects LIST] [--nodes 3] [--streams 1] [--shards 4] [--duration 60s] [--faults LIST] --out DIR\n       felixsim shrink --plan FILE [--defects LIST] [--nodes 3] ... --out DIR\n       [--invariant NAME] [--jobs 2] [--budget 60s] [--candidates 2000]",
	examples: []string{
		"felixsim shrink --seed 3 --defects commit-as-two-records --out /tmp/small   # then: felixsim run --plan /tmp/small/plan.txt --defects commit-as-two-records",
		"felixsim shrink --seed 4 --defects stale-read --invariant " + string(properties.InvariantLinearizableRead) + " --budget 2m --out /tmp/s4",
		"felixsim shrink --plan failing.plan --defects ack-before-quorum --jobs 1 --out /tmp/small",
	},
	exits: "0 shrunk, and a fresh run of the shrunk plan violates the same invariant; 2 bad usage;\n3 no verified result: the run given does not fail, a worker broke the protocol, or the re-run of the shrunk plan did not fail as its candidate did",
}

// shrinkCommand is `felixsim shrink`: it parses flags into shrink.Options,
// shrinks with a progress line on a terminal, writes the shrunk plan and
// the listing to --out and prints the listing.
func shrinkCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("shrink", flag.ContinueOnError)
	seed := fs.Uint64("seed", 0, "the failing run's seed (or give --plan)")
	planFile := fs.String("plan", "", "the failing run's plan file (sim's plan format) instead of a seed")
	nodes := fs.Int("nodes", runner.BrokersDefault, "brokers in the cluster")
	streams := fs.Int("streams", runner.StreamsDefault, "streams in the cluster")
	shards := fs.Uint("shards", runner.ShardsDefault, "shards per stream")
	duration := fs.Duration("duration", time.Duration(runner.DurationNsDefault), "the failing run's simulated fault phase (with --seed)")
	faults := fs.String("faults", "all", "fault kinds the seed draws from (with --seed): all, none, or a comma-separated list")
	defects := fs.String("defects", "none", "planted broker bugs the failing run had: none or "+runner.DefectNames())
	invariant := fs.String("invariant", "", "the invariant the shrunk run must still violate (default: the failing run's decisive one)")
	outDir := fs.String("out", "", "directory for the shrunk plan (plan.txt), the original plan (original-plan.txt) and the listing (shrink.txt)")
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
		err = os.MkdirAll(*outDir, 0o755)
	}
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

// shrinkOptions builds the failing run's options from --seed or --plan.
func shrinkOptions(fs *flag.FlagSet, seed uint64, planFile string, nodes, streams int, shards uint, duration time.Duration, faults, defects, binary string) (shrink.Options, error) {
	ro, err := runOptions(seed, nodes, streams, shards, duration, faults, defects)
	if err != nil {
		return shrink.Options{}, err
	}
	switch {
	case planFile == "" && !flagSet(fs, "seed"):
		return shrink.Options{}, fmt.Errorf("give the failing run: --seed N or --plan FILE")
	case planFile != "" && flagSet(fs, "seed"):
		return shrink.Options{}, fmt.Errorf("--seed and --plan refused together: a plan carries its seed")
	case planFile != "":
		if err := withPlan(&ro, planFile, false); err != nil {
			return shrink.Options{}, err
		}
	}
	if binary == "" {
		if binary, err = os.Executable(); err != nil {
			return shrink.Options{}, fmt.Errorf("cannot find this felixsim binary for the candidates (give --binary): %w", err)
		}
	}
	return shrink.Options{Run: ro, Binary: binary}, nil
}

// writeShrink saves the plans and the listing, prints the listing and the
// replay command, and returns the exit code.
func writeShrink(res *shrink.Result, opts *shrink.Options, dir string, stdout, stderr io.Writer) int {
	var listing strings.Builder
	res.WriteListing(&listing)
	plan := filepath.Join(dir, "plan.txt")
	o := opts.Run
	replay := fmt.Sprintf("felixsim run --plan %s --nodes %d --streams %d --shards %d --defects %s",
		plan, o.Brokers, o.Streams, o.Shards, o.DefectList())
	fmt.Fprintf(&listing, "plan: %s\nreplay: %s\n", plan, replay)
	files := []struct{ name, text string }{
		{"plan.txt", fmt.Sprintf("# shrunk by felixsim shrink to violate %s; replay with\n#   %s\n%s%s", res.Invariant, replay, runMeta(res, &o), res.Plan)},
		{"original-plan.txt", res.OriginalPlan.String()},
		{"shrink.txt", listing.String()},
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.text), 0o644); err != nil {
			fmt.Fprintf(stderr, "felixsim shrink: --out: %v\n", err)
			return exitIncomplete
		}
	}
	fmt.Fprint(stdout, listing.String())
	if !res.Verified() {
		return exitIncomplete
	}
	return exitPass
}

// runMeta is the run's topology, defects and (when verified) trace hash
// as `# key: value` comment lines, which plan readers skip and the saved-
// run format (felixsim run --out, replay) reads: with them the plan file
// says how it must be run.
func runMeta(res *shrink.Result, o *runner.Options) string {
	meta := fmt.Sprintf("# brokers: %d\n# streams: %d\n# shards: %d\n# defects: %s\n", o.Brokers, o.Streams, o.Shards, o.DefectList())
	if res.Verified() {
		meta += fmt.Sprintf("# trace-hash: %016x\n", res.VerifiedRun.TraceHash)
	}
	return meta
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
