package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/felixsim/felixsim/sim/artifact"
	"github.com/felixsim/felixsim/sim/verdict"
)

// Exit codes shared by every subcommand (package verdict holds them and
// the one rule that picks a run's): a script can tell a safety failure
// from a liveness failure, from bad usage and from a run that could not
// reach a verdict. A run's code is its most serious finding: a safety
// violation decides even when a crash, a timeout or a write error came
// after it; no verdict only when nothing was violated.
const (
	exitPass       = verdict.ExitPass      // every check held
	exitSafety     = verdict.ExitSafety    // a safety invariant failed (whatever else happened)
	exitUsage      = verdict.ExitUsage     // bad command, flags or input; nothing ran
	exitIncomplete = verdict.ExitNoVerdict // no verdict, and nothing violated: a crash, an unfinished exploration, an output not written
	exitLiveness   = verdict.ExitLiveness  // a liveness invariant failed, no safety one
	exitDiverged   = verdict.ExitDiverged  // a re-run of a saved plan did not reproduce its trace hash, and violated nothing
)

// command is one subcommand: its name, a one-line summary for the help
// text, and its entry point, which returns the process exit code.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// gcPercentDefault is the GC target felixsim runs with unless GOGC is set:
// a simulation is one goroutine churning short-lived messages and batches,
// and collecting at 5x the live heap instead of 2x ran seeds 1-6 of the
// default run 1.1x faster in wall time (docs/performance.md). The GC
// setting cannot change a trace: nothing simulated reads the heap.
const gcPercentDefault = 400

// commands lists every subcommand in help order; adding one is one line.
var commands = []command{
	{name: "check-model", summary: "explore the Go mirror of the FelixAtomicCommit TLA+ model", run: checkModelCommand},
	{name: "check-trace", summary: "validate an exported abstract trace (run --trace-out) against the model", run: checkTraceCommand},
	{name: "replay", summary: "re-run a saved artifact or plan, check its trace hash, name the first diverging event", run: replayCommand},
	{name: "run", summary: "run one seed on a simulated cluster under faults, then heal, check every property, print the trace hash", run: runCommand},
	{name: "sweep", summary: "run many seeds in worker processes and list the failing ones with the command that reproduces each", run: sweepCommand},
	{name: "scenario", summary: "run broker scenario files (scripted stories with expected output); --rewrite updates them", run: scenarioCommand},
	{name: "shrink", summary: "reduce a failing run to a small plan (fewer faults, operations, shorter) that fails the same invariant", run: shrinkCommand},
	{name: "merge", summary: "combine the reports of a sharded sweep (sweep --shard i/n --json) into the report of the whole", run: mergeCommand},
}

// memoryLimitDefault is the soft memory limit felixsim runs with unless
// GOMEMLIMIT is set: a backstop under the headroom cap (gcheadroom.go)
// for a run whose live heap itself grows past it (the live heap grows
// with a run's length, about 0.5 MB per simulated second of the default
// run, docs/performance.md "Memory"). Under the limit the collector works
// harder instead (it costs CPU only near it).
const memoryLimitDefault = 4 << 30

func main() {
	// GOGC set by the user is taken as it is: no headroom cap either.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercentDefault)
		startGCHeadroom()
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimitDefault)
	}
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

// dispatch runs the subcommand args[0] names and returns its exit code.
func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		writeUsage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && args[0] == "help" {
			return helpFor(args[1:], stdout, stderr)
		}
		writeUsage(stdout)
		return 0
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "felixsim %s\n", artifact.Revision())
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "felixsim: unknown command %q (see 'felixsim help')\n", args[0])
	return exitUsage
}

// helpFor is `felixsim help CMD [SUBCMD]`: that command's --help
// (`felixsim help help` is the command list).
func helpFor(args []string, stdout, stderr io.Writer) int {
	if args[0] == "help" {
		writeUsage(stdout)
		return exitPass
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(append(append([]string(nil), args[1:]...), "--help"), stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "felixsim help: unknown command %q (see 'felixsim help')\n", args[0])
	return exitUsage
}

// writeUsage prints the command list.
func writeUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: felixsim <command> [flags]")
	fmt.Fprintln(w, "")
	fmt.Fprintln(w, "commands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "")
	fmt.Fprintln(w, "Run 'felixsim help <command>' (or 'felixsim <command> --help') for a command's flags and examples;")
	fmt.Fprintln(w, "'felixsim --version' prints this binary's revision.")
	fmt.Fprintln(w, "Exit codes, the most serious finding deciding: 1 a safety invariant violated (whatever came after), 4 a liveness one (no safety one),")
	fmt.Fprintln(w, "5 a re-run of a saved plan did not reproduce its trace hash, 3 no verdict with nothing violated (a crash, an unfinished exploration,")
	fmt.Fprintln(w, "a lost history, an output not written), 0 pass; 2 bad usage (nothing ran).")
	fmt.Fprintln(w, "'felixsim run --list-invariants' lists every invariant and its family.")
}
