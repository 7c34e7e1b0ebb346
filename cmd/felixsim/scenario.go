package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/felixsim/felixsim/sim/scenario"
)

// scenarioHelp is `felixsim scenario --help` besides the flags.
var scenarioHelp = help{
	usage: "scenario [--rewrite] [--defects-off] FILE...",
	examples: []string{
		"felixsim scenario testdata/scenarios/order-42.txt",
		"felixsim scenario --rewrite testdata/scenarios/*.txt   # update the expected output in place",
	},
	exits:      "0 every command printed its expected output, 1 a mismatch (a diff is printed), 2 bad usage or a malformed file (file, line and problem named)",
	positional: true,
}

// scenarioCommand is `felixsim scenario`: it runs broker scenario files
// (sim/scenario) deterministically and compares or rewrites their output.
func scenarioCommand(args []string, stdout, stderr io.Writer) int {
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
	for _, path := range fs.Args() {
		text, err := os.ReadFile(path)
		if err != nil {
			return usageError(stderr, "scenario", err)
		}
		f, err := scenario.Parse(path, string(text))
		if err != nil {
			return usageError(stderr, "scenario", err)
		}
		files = append(files, f)
	}
	code := exitPass
	for _, f := range files {
		out := scenario.Run(f, scenario.Options{DefectsOff: *defectsOff})
		if *rewrite {
			if err := os.WriteFile(f.Name, []byte(scenario.Format(f, out)), 0o644); err != nil {
				fmt.Fprintf(stderr, "felixsim scenario: %v\n", err)
				return exitIncomplete
			}
			fmt.Fprintf(stdout, "rewrote %s\n", f.Name)
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
