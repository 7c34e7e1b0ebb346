package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/felixsim/felixsim/tla"
)

// checkModelCommand is `felixsim check-model`: it selects a config,
// explores it with package tla, and prints the report.
func checkModelCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check-model", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "", "config to explore: "+strings.Join(tla.ConfigNames(), ", ")+" (default: the main one, or the variant's own)")
	variant := fs.String("variant", "", "model variant: Atomic, SplitRecords or PartialApply (alone, it picks that variant's config)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of the text report")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: felixsim check-model [--config NAME] [--variant NAME] [--json]")
		fmt.Fprintln(stderr, "exit codes: 0 invariants hold, 1 an invariant is violated (the model's invariants are all safety), 2 bad usage, 3 exploration incomplete")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPass
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "check-model: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitUsage
	}
	cfg, err := tla.Select(*config, *variant)
	if err != nil {
		fmt.Fprintf(stderr, "check-model: %v\n", err)
		return exitUsage
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
