package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/felixsim/felixsim/sim/artifact"
)

// replayHelp is `felixsim replay --help` besides the flags.
var replayHelp = help{
	usage: "replay DIR | --plan FILE [--trace FILE] [--until DURATION [--scope SCOPE]]\n\n" +
		"Re-runs a saved plan (an artifact directory written by `felixsim run --out DIR`, or a plan file),\n" +
		"checks the trace hash the plan expects and, when it differs, names the first diverging event.",
	examples: []example{
		{after: "felixsim run --seed 3 --duration 8s --defects ack-before-quorum --out seed3", cmd: "felixsim replay seed3",
			does: "the saved failing run again, trace hash checked", exit: exitSafety},
		{cmd: "felixsim replay seed3 --until 2s --scope acme/orders/order-events/0", does: "the cluster at 2 s, one scope's log", exit: exitSafety},
		{cmd: "felixsim replay --plan seed3/plan.txt --trace seed3/events.ndjson", does: "a plan file, and a trace to name a divergence by", exit: exitSafety},
	},
	exits: "as `felixsim run`, the most serious finding deciding: 1 safety (even if the trace diverged), 4 liveness (no safety),\n" +
		"5 the trace diverged and nothing was violated, 3 no verdict (the simulated system panicked, the history could not be kept), 0 pass;\n" +
		"2 bad usage or an unreadable plan or trace",
	positional: true,
}

// replayCommand is `felixsim replay DIR|--plan FILE`: it re-runs a saved
// plan, checks the trace hash, names the first diverging event, and with
// --until prints the cluster state at a simulated time.
func replayCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	planFile := fs.String("plan", "", "replay this plan file instead of an artifact directory")
	traceFile := fs.String("trace", "", "a saved event trace (an artifact's events.ndjson) to name the first diverging event by; an artifact directory's own by default")
	b := newBounds(fs)
	until := b.Duration("until", 0, 0, durationMax, "print the cluster state as it stood at this simulated time (leaders, terms, commit marks, scopes), e.g. 12.5s")
	scope := fs.String("scope", "", "with --until: list this scope's log and state on every broker (tenant/namespace/stream/shard)")
	if code, done := parseFlags(fs, args, replayHelp, stdout, stderr); done {
		return code
	}
	err := b.check()
	if err == nil {
		err = checkReplayArgs(fs, *planFile, *until, *scope)
	}
	if err != nil {
		return usageError(stderr, "replay", err)
	}
	start := time.Now()
	rep, err := artifact.Replay(artifact.ReplayOptions{Dir: fs.Arg(0), PlanPath: *planFile, TracePath: *traceFile,
		UntilNs: until.Nanoseconds(), UntilScope: *scope})
	if err != nil {
		return runError(stderr, "replay", err)
	}
	if rep.Result.StateAt != "" {
		fmt.Fprint(stdout, rep.Result.StateAt)
	}
	fmt.Fprint(stdout, rep.Result.Summary())
	fmt.Fprint(stdout, rep)
	fmt.Fprintf(stdout, "wall %.1fs\n", time.Since(start).Seconds())
	return rep.Verdict().ExitCode()
}

// checkReplayArgs refuses a replay with no source, two sources, or flags
// that do not fit together.
func checkReplayArgs(fs *flag.FlagSet, planFile string, until time.Duration, scope string) error {
	dir := fs.Arg(0)
	switch {
	case fs.NArg() > 1:
		return fmt.Errorf("unexpected argument %q", fs.Arg(1))
	case dir == "" && planFile == "":
		return fmt.Errorf("give an artifact directory or --plan FILE")
	case dir != "" && planFile != "":
		return fmt.Errorf("give an artifact directory or --plan FILE, not both")
	case until < 0:
		return fmt.Errorf("--until %s refused: negative", until)
	case scope != "" && until == 0:
		return fmt.Errorf("--scope needs --until")
	}
	if dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("%s is not an artifact directory (for a plan file use --plan)", dir)
		}
	}
	return nil
}
