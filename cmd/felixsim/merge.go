package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/felixsim/felixsim/sim/sweep"
)

// mergeHelp is `felixsim merge --help` besides the flags.
var mergeHelp = help{
	usage: "merge [--json] [--junit FILE] [--out DIR] SHARD-REPORT...",
	examples: []example{
		{after: "felixsim sweep --seeds 1..4 --duration 2s --shard 1/2 --json > shard-1.json; felixsim sweep --seeds 1..4 --duration 2s --shard 2/2 --json > shard-2.json",
			cmd: "felixsim merge shard-1.json shard-2.json", does: "the two shards' reports as one", exit: exitPass},
		{cmd: "felixsim merge --json --junit sweep.xml shard-*.json > sweep.json", does: "as JSON, and JUnit XML for CI", exit: exitPass},
	},
	exits:      "0 no seed failed, 1 a seed failed, 2 bad usage or a report refused (the file and line are named),\n3 no verdict: no seed ran in any shard, or an output file could not be written (the report is printed first)",
	positional: true,
}

// mergeCommand is `felixsim merge`: it reads the shard reports of one
// sweep (`felixsim sweep --shard i/n --json`), strictly, and prints the
// report of the whole sweep.
func mergeCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the merged report as one JSON object instead of the table")
	junit := fs.String("junit", "", "also write the merged report as JUnit XML to this file")
	outDir := fs.String("out", "", "write report.json and report.xml of the merged report to this directory")
	if code, done := parseFlags(fs, args, mergeHelp, stdout, stderr); done {
		return code
	}
	if fs.NArg() == 0 {
		return usageError(stderr, "merge", fmt.Errorf("no shard reports given"))
	}
	var in []sweep.NamedReport
	for _, path := range fs.Args() {
		rep, err := readReportFile(path)
		if err != nil {
			return usageError(stderr, "merge", err)
		}
		in = append(in, sweep.NamedReport{Name: path, Report: rep})
	}
	if err := checkReportOutputs(*junit, *outDir); err != nil {
		return usageError(stderr, "merge", err)
	}
	merged, err := sweep.Merge(in)
	if err != nil {
		return usageError(stderr, "merge", err)
	}
	merged.CountModelStates(reachableCodes())
	if code := writeReport(merged, *asJSON, *junit, *outDir, stdout, stderr, "merge"); code != exitPass {
		return code
	}
	return reportVerdict(merged, "merge", stderr)
}

// readReportFile reads one sweep report file strictly.
func readReportFile(path string) (*sweep.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return sweep.ReadReport(path, f)
}
