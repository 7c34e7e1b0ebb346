package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/felixsim/felixsim/sim/artifact"
	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/scenario"
)

// scenarioHelp is `felixsim scenario --help` besides the flags.
var scenarioHelp = help{
	usage: "scenario [--rewrite] [--defects-off] FILE...\n       felixsim scenario from SAVED-DIR|PLAN-FILE [--out FILE]",
	examples: []example{
		{cmd: "felixsim scenario testdata/scenarios/order-42.txt", does: "a scripted story, its output checked", exit: exitPass},
		{cmd: "felixsim scenario --rewrite testdata/scenarios/*.txt", does: "update the expected output in place", exit: exitPass},
		{after: "felixsim shrink --seed 3 --duration 10s --defects commit-as-two-records --out s3", cmd: "felixsim scenario from s3 --out s3.txt",
			does: "a shrunk failing run as a scenario", exit: exitPass},
	},
	exits:      "0 every command printed its expected output, 1 a mismatch (a diff is printed), 2 bad usage or a malformed file (file, line and problem named),\n3 with --rewrite: a file could not be written",
	positional: true,
}

// scenarioCommand is `felixsim scenario`: it runs broker scenario files
// (sim/scenario) deterministically and compares or rewrites their output.
func scenarioCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "from" {
		return scenarioFromCommand(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("scenario", flag.ContinueOnError)
	rewrite := fs.Bool("rewrite", false, "write each command's actual output into the file instead of comparing")
	defectsOff := fs.Bool("defects-off", false, "run with every planted defect off, whatever the files' brokers commands ask")
	if code, done := parseFlags(fs, args, scenarioHelp, stdout, stderr); done {
		return code
	}
	if fs.NArg() == 0 {
		return usageError(stderr, "scenario", fmt.Errorf("no scenario files given"))
	}
	var files []*scenario.File
	texts := map[string]string{}
	for _, path := range fs.Args() {
		text, err := artifact.ReadInput(path, "scenario", scenario.FileBytesMax)
		if err != nil {
			return usageError(stderr, "scenario", err)
		}
		f, err := scenario.Parse(path, string(text))
		if err != nil {
			return usageError(stderr, "scenario", err)
		}
		files, texts[path] = append(files, f), string(text)
	}
	code := exitPass
	for _, f := range files {
		out := scenario.Run(f, scenario.Options{DefectsOff: *defectsOff})
		if *rewrite {
			if code := rewriteScenario(f, texts[f.Name], scenario.Format(f, out), stdout, stderr); code != exitPass {
				return code
			}
			continue
		}
		if d := scenario.Diff(f, out); d != "" {
			fmt.Fprintf(stdout, "FAIL %s\n%s", f.Name, d)
			code = exitSafety
			continue
		}
		fmt.Fprintf(stdout, "ok   %s (%d commands)\n", f.Name, len(f.Commands))
	}
	return code
}

// rewriteScenario writes a scenario file's actual output in place when it
// differs from the file's text, saying "rewrote" or "unchanged"; a file
// it cannot write is no verdict (exit 3), named.
func rewriteScenario(f *scenario.File, old, text string, stdout, stderr io.Writer) int {
	if text == old {
		fmt.Fprintf(stdout, "unchanged %s\n", f.Name)
		return exitPass
	}
	if err := os.WriteFile(f.Name, []byte(text), 0o644); err != nil {
		fmt.Fprintf(stderr, "felixsim scenario: %s not written: %v (exit %d)\n", f.Name, err, exitIncomplete)
		return exitIncomplete
	}
	fmt.Fprintf(stdout, "rewrote %s\n", f.Name)
	return exitPass
}

// scenarioFromHelp is `felixsim scenario from --help` besides the flags.
var scenarioFromHelp = help{
	usage: "scenario from SAVED-DIR|PLAN-FILE [--out FILE]",
	examples: []example{
		{after: "felixsim shrink --seed 3 --duration 10s --defects commit-as-two-records --out s3", cmd: "felixsim scenario from s3 --out regression-s3.txt",
			does: "a shrunk failing run as a scenario file", exit: exitPass},
		{after: "felixsim run --seed 3 --duration 8s --defects ack-before-quorum --out seed3", cmd: "felixsim scenario from seed3/plan.txt",
			does: "to stdout", exit: exitPass},
	},
	exits:      "0 the scenario was written and its check shows the run's deciding invariant (or the run passed and the check does too), 2 bad usage or an unreadable plan, 3 the scenario was written but its check does not show what the run violated,\n5 the re-run did not reproduce the trace hash the plan records (no scenario written)",
	positional: true,
}

// scenarioFromCommand is `felixsim scenario from`: it re-runs a saved run
// (an artifact directory or a plan file), writes it as a scenario
// (sim/scenario.FromRun) with the outputs a scenario run gives, and says
// whether the scenario's check shows what the run violated.
func scenarioFromCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scenario from", flag.ContinueOnError)
	outPath := fs.String("out", "", "write the scenario to this file (default: standard output)")
	if code, done := parseFlags(fs, args, scenarioFromHelp, stdout, stderr); done {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "scenario from", fmt.Errorf("want one saved run directory or plan file, got %d arguments", fs.NArg()))
	}
	planPath := fs.Arg(0)
	if fi, err := os.Stat(planPath); err == nil && fi.IsDir() {
		planPath = filepath.Join(planPath, artifact.PlanFile)
	}
	var files artifact.Outputs
	files.File("--out", *outPath)
	files.Input("the saved run's plan", planPath)
	if err := files.Check(false); err != nil {
		return usageError(stderr, "scenario from", fmt.Errorf("%w (nothing ran)", err))
	}
	o, meta, err := artifact.LoadRun(planPath, artifact.CommandDefaults(), artifact.NoFlags)
	if err != nil {
		return usageError(stderr, "scenario from", err)
	}
	o.KeepHistory = true
	res, err := runner.Run(o)
	if err != nil {
		return runError(stderr, "scenario from", err)
	}
	if err := meta.CheckReproduced(res.TraceHash); err != nil {
		fmt.Fprintf(stderr, "felixsim scenario from: refused: %v; no scenario written (exit %d)\n", err, exitDiverged)
		return exitDiverged
	}
	f, err := scenario.FromRun(res)
	if err != nil {
		return usageError(stderr, "scenario from", err)
	}
	outs := scenario.Run(f, scenario.Options{})
	text := scenario.Format(f, outs)
	if *outPath == "" {
		fmt.Fprint(stdout, text)
	} else if err := os.WriteFile(*outPath, []byte(text), 0o644); err != nil {
		fmt.Fprintf(stderr, "felixsim scenario from: %v\n", err)
		return exitIncomplete
	}
	inv := res.Decisive()
	if inv == "" {
		fmt.Fprintf(stderr, "the run passed; the scenario has %d commands\n", len(f.Commands))
		return exitPass
	}
	if !scenario.Shows(f, outs, inv) {
		fmt.Fprintf(stderr, "the run violated %s, but the scenario's check does not show it: the scenario's interleaving differs from the run's\n", inv)
		return exitIncomplete
	}
	fmt.Fprintf(stderr, "the scenario's check shows %s, as the run did (%d commands)\n", inv, len(f.Commands))
	return exitPass
}
