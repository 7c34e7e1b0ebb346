package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/felixsim/felixsim/tla"
)

// checkModelHelp is `felixsim check-model --help` besides the flags.
var checkModelHelp = help{
	usage: "check-model [--config NAME] [--variant NAME] [--json]",
	examples: []example{
		{cmd: "felixsim check-model", does: "the main config: every invariant holds", exit: exitPass},
		{cmd: "felixsim check-model --variant SplitRecords", does: "a broken variant: prints the counterexample", exit: exitSafety},
	},
	exits: "0 invariants hold, 1 an invariant is violated (the model's invariants are all safety), 2 bad usage, 3 exploration incomplete",
}

// checkModelCommand is `felixsim check-model`: it selects a config,
// explores it with package tla, and prints the report.
func checkModelCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check-model", flag.ContinueOnError)
	config := fs.String("config", "", "config to explore: "+strings.Join(tla.ConfigNames(), ", ")+" (default: the main one, or the variant's own)")
	variant := fs.String("variant", "", "model variant: Atomic, SplitRecords or PartialApply (alone, it picks that variant's config)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of the text report")
	if code, done := parseFlags(fs, args, checkModelHelp, stdout, stderr); done {
		return code
	}
	cfg, err := tla.Select(*config, *variant)
	if err != nil {
		return usageError(stderr, "check-model", err)
	}
	start := time.Now()
	res, err := tla.Explore(cfg)
	seconds := time.Since(start).Seconds()
	if err != nil {
		fmt.Fprintf(stderr, "check-model: %v\n", err)
		return exitIncomplete
	}
	rep := tla.NewReport(res, seconds)
	write := rep.WriteText
	if *asJSON {
		write = rep.WriteJSON
	}
	if err := write(stdout); err != nil {
		fmt.Fprintf(stderr, "check-model: %v\n", err)
		return exitIncomplete
	}
	if res.Violation != nil {
		return exitSafety
	}
	return exitPass
}
