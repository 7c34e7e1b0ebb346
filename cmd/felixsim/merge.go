package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/felixsim/felixsim/sim/artifact"
	"github.com/felixsim/felixsim/sim/sweep"
	"github.com/felixsim/felixsim/sim/verdict"
	"github.com/felixsim/felixsim/tla"
)

// mergeHelp is `felixsim merge --help` besides the flags.
var mergeHelp = help{
	usage: "merge [--json] [--junit FILE] [--out DIR] SHARD-REPORT...",
	examples: []example{
		{after: "felixsim sweep --seeds 1..4 --duration 2s --shard 1/2 --json > shard-1.json; felixsim sweep --seeds 1..4 --duration 2s --shard 2/2 --json > shard-2.json",
			cmd: "felixsim merge shard-1.json shard-2.json", does: "the two shards' reports as one", exit: exitPass},
		{cmd: "felixsim merge --json --junit sweep.xml shard-*.json > sweep.json", does: "as JSON, and JUnit XML for CI", exit: exitPass},
	},
	exits:      "as `felixsim sweep`: the most serious of the seeds' verdicts (1 safety, 4 liveness, 3 no verdict), 0 no seed failed;\n3 also when no seed ran in any shard, or an output file could not be written (the report is printed first);\n2 bad usage or a report refused (the file and line are named)",
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
	force := fs.Bool("force", false, "write into an --out directory that exists and holds files")
	if code, done := parseFlags(fs, args, mergeHelp, stdout, stderr); done {
		return code
	}
	if fs.NArg() == 0 {
		return usageError(stderr, "merge", fmt.Errorf("no shard reports given"))
	}
	var in []sweep.NamedReport
	for _, path := range fs.Args() {
		rep, err := readReportFile(path)
		if err == nil {
			err = checkModelStateCodes(path, rep.ModelStates)
		}
		if err != nil {
			return usageError(stderr, "merge", err)
		}
		in = append(in, sweep.NamedReport{Name: path, Report: rep})
	}
	outs := reportOutputs(*junit, *outDir)
	for _, path := range fs.Args() {
		outs.Input("shard report", path)
	}
	if err := outs.Check(*force); err != nil {
		return usageError(stderr, "merge", err)
	}
	merged, err := sweep.Merge(in)
	if err != nil {
		return usageError(stderr, "merge", err)
	}
	merged.CountModelStates(countModelStates)
	v := verdict.Worst(merged.Verdict(), writeReport(merged, *asJSON, *junit, *outDir, stdout, stderr, "merge"))
	noteVerdict(merged, "merge", v, stderr)
	return v.ExitCode()
}

// checkModelStateCodes refuses a report whose model states hold a code no
// projected state has (tla.ProjectedState.Valid).
func checkModelStateCodes(path string, codes []uint64) error {
	for _, c := range codes {
		if !tla.ProjectedState(c).Valid() {
			return fmt.Errorf("sweep report %s refused: model_states holds %d, which is no projected model state's code", path, c)
		}
	}
	return nil
}

// readReportFile reads one sweep report file strictly.
func readReportFile(path string) (*sweep.Report, error) {
	f, err := artifact.OpenInput(path, "sweep report", sweep.ReportBytesMax)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return sweep.ReadReport(path, f)
}
