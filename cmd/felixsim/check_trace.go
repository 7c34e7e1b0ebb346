package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/tla"
)

// checkTraceCommand is `felixsim check-trace FILE`: it validates an
// exported abstract trace (run --trace-out) against the model with the
// Go mirror's trace mode and prints the result as JSON.
func checkTraceCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check-trace", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nodes := fs.Int("nodes", runner.BrokersDefault, "brokers in the cluster that wrote the trace")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: felixsim check-trace [--nodes 3] TRACE.ndjson")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 1 || *nodes < 1 {
		fs.Usage()
		return exitUsage
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "felixsim check-trace: %v\n", err)
		return exitUsage
	}
	defer f.Close()
	steps, err := modeltrace.ReadNDJSON(f)
	if err != nil {
		fmt.Fprintf(stderr, "felixsim check-trace: %s: %v\n", fs.Arg(0), err)
		return exitUsage
	}
	res := tla.ValidateTrace(steps, *nodes)
	b, err := json.Marshal(res)
	if err != nil {
		panic(fmt.Sprintf("felixsim check-trace: result does not marshal: %v", err))
	}
	fmt.Fprintf(stdout, "%s\n", b)
	if !res.Valid {
		return exitSafety
	}
	return exitPass
}
