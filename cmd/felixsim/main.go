package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/felixsim/felixsim/sim/artifact"
)

// Exit codes shared by every subcommand: a script can tell a safety failure
// from a liveness failure, from bad usage and from a run that could not
// reach a verdict. A failed run's code follows the family of the invariants
// it broke (properties' registry; felixsim run --list-invariants).
const (
	exitPass       = 0 // every check held
	exitSafety     = 1 // a safety invariant failed (liveness ones may have failed too)
	exitUsage      = 2 // bad command, flags or options; nothing ran
	exitIncomplete = 3 // no verdict: the simulated system panicked (the crash family), or an exploration could not finish
	exitLiveness   = 4 // only liveness invariants failed: after heal the cluster did not make progress within its budget
	exitDiverged   = 5 // a re-run of a saved plan did not reproduce the trace hash it records
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

// helpFor is `felixsim help CMD [SUBCMD]`: that command's --help.
func helpFor(args []string, stdout, stderr io.Writer) int {
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
	fmt.Fprintln(w, "Exit codes: 0 pass, 1 a safety invariant violated, 2 bad usage, 3 no verdict (a crash, an unfinished exploration, a lost history),")
	fmt.Fprintln(w, "4 only liveness invariants violated, 5 a re-run of a saved plan did not reproduce its trace hash.")
	fmt.Fprintln(w, "'felixsim run --list-invariants' lists every invariant and its family.")
}
