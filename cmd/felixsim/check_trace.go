package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/tla"
)

// checkTraceJSON is check-trace's output: the Go mirror's verdict, and with
// --tla-module the group it judged and the files written for TLC.
type checkTraceJSON struct {
	tla.TraceResult
	Group  *uint64  `json:"group,omitempty"`
	Module []string `json:"tla_module,omitempty"`
}

// checkTraceHelp is `felixsim check-trace --help` besides the flags.
var checkTraceHelp = help{
	usage: "check-trace [--nodes 3] [--group G] [--tla-module DIR] TRACE.ndjson",
	examples: []string{
		"felixsim check-trace trace.ndjson                    # the file of run --seed N --trace-out trace.ndjson",
		"felixsim check-trace --tla-module /tmp/m trace.ndjson # also one raft group's trace as a TLA+ module for TLC",
	},
	exits:      "0 the trace is valid, 1 a step no action of the model explains (" + string(tla.TraceNotInModel) + "), 2 bad usage or an unreadable trace",
	positional: true,
}

// checkTraceCommand is `felixsim check-trace FILE`: it validates an
// exported abstract trace (run --trace-out) against the model with the
// Go mirror's trace mode and prints the result as JSON. With --group or
// --tla-module it judges one raft group's trace (tla.GroupTrace); with
// --tla-module DIR it also writes that trace as a TLA+ module for TLC
// (tla/TraceFelixAtomicCommit.tla; make tlc-trace runs both).
func checkTraceCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check-trace", flag.ContinueOnError)
	nodes := fs.Int("nodes", runner.BrokersDefault, "brokers in the cluster that wrote the trace")
	group := fs.Int64("group", -1, "judge only this raft group's steps (default with --tla-module: the group of the first rejected step, else the lowest)")
	moduleDir := fs.String("tla-module", "", "write the group's trace as "+tla.TraceModuleName+".tla and .cfg into this directory")
	if code, done := parseFlags(fs, args, checkTraceHelp, stdout, stderr); done {
		return code
	}
	if fs.NArg() != 1 || *nodes < 1 {
		return usageError(stderr, "check-trace", fmt.Errorf("want one trace file and --nodes >= 1, got %d files and --nodes %d", fs.NArg(), *nodes))
	}
	steps, err := readTrace(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "felixsim check-trace: %v\n", err)
		return exitUsage
	}
	var out checkTraceJSON
	if *group >= 0 || *moduleDir != "" {
		g, ok := pickGroup(steps, *group, *nodes)
		if !ok {
			fmt.Fprintf(stderr, "felixsim check-trace: %s holds no raft group's steps\n", fs.Arg(0))
			return exitUsage
		}
		out.Group = &g
		steps = tla.GroupTrace(steps, g)
	}
	if *moduleDir != "" {
		files, err := writeTraceModule(*moduleDir, steps, *nodes, fmt.Sprintf("%s, raft group %d", filepath.Base(fs.Arg(0)), *out.Group))
		if err != nil {
			fmt.Fprintf(stderr, "felixsim check-trace: %v\n", err)
			return exitUsage
		}
		out.Module = files
	}
	out.TraceResult = tla.ValidateTrace(steps, *nodes)
	b, err := json.Marshal(out)
	if err != nil {
		panic(fmt.Sprintf("felixsim check-trace: result does not marshal: %v", err))
	}
	fmt.Fprintf(stdout, "%s\n", b)
	if !out.Valid {
		return exitSafety
	}
	return exitPass
}

func readTrace(path string) ([]modeltrace.Step, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	steps, err := modeltrace.ReadNDJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return steps, nil
}

// pickGroup is the group asked for, else the rejected one, else the lowest.
func pickGroup(steps []modeltrace.Step, asked int64, nodes int) (uint64, bool) {
	if asked >= 0 {
		return uint64(asked), true
	}
	if g, ok := tla.RejectedGroup(steps, nodes); ok {
		return g, true
	}
	gs := tla.TraceGroups(steps)
	if len(gs) == 0 {
		return 0, false
	}
	return gs[0], true
}

// writeTraceModule writes the module and its config into dir.
func writeTraceModule(dir string, steps []modeltrace.Step, nodes int, source string) ([]string, error) {
	module, cfg, err := tla.TraceModule(steps, nodes, source)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for ext, text := range map[string]string{".tla": module, ".cfg": cfg} { //det:ok two independent files; order reaches nothing
		p := filepath.Join(dir, tla.TraceModuleName+ext)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return nil, err
		}
		files = append(files, p)
	}
	sort.Strings(files)
	return files, nil
}
