package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/sim/artifact"
	"github.com/felixsim/felixsim/tla"
)

// checkTraceJSON is check-trace's output: the Go mirror's verdict, and with
// --tla-module the group it judged and the files written for TLC. NoVerdict
// says why there is no verdict (nothing to judge); Valid is then false.
type checkTraceJSON struct {
	tla.TraceResult
	Brokers   int      `json:"brokers"`
	Group     *uint64  `json:"group,omitempty"`
	Module    []string `json:"tla_module,omitempty"`
	NoVerdict string   `json:"no_verdict,omitempty"`
	// Incomplete says why the trace file is not known whole (no end
	// line, or one that does not match its lines); "" when it is.
	Incomplete string `json:"incomplete,omitempty"`
}

// checkTraceHelp is `felixsim check-trace --help` besides the flags.
var checkTraceHelp = help{
	usage: "check-trace [--group G] [--tla-module DIR] [--nodes N] TRACE.ndjson",
	examples: []example{
		{after: "felixsim run --seed 2 --duration 2s --trace-out trace.ndjson", cmd: "felixsim check-trace trace.ndjson", does: "validate a run's exported trace", exit: exitPass},
		{cmd: "felixsim check-trace --tla-module tlc trace.ndjson", does: "and write one raft group's trace as a TLA+ module for TLC", exit: exitPass},
		{cmd: "felixsim check-trace --group 99 trace.ndjson", does: "a group with no step: no verdict", exit: exitIncomplete},
	},
	exits: "0 the trace is valid, 1 a step no action of the model explains (" + string(tla.TraceNotInModel) + "), or one that breaks one of the model's\n" +
		"invariants on the trace's state (the rejection names it), 2 bad usage or an unreadable trace,\n" +
		"3 no verdict: the trace (or the group asked for) holds no step, is of an older format (read, not judged), or it\n" +
		"validates but is incomplete (no end line: cut short) or its end line does not match its lines (altered)",
	positional: true,
}

// checkTraceCommand is `felixsim check-trace FILE`: it validates an
// exported abstract trace (run --trace-out) against the model with the
// Go mirror's trace mode and prints the result as JSON. The broker count
// is the trace header's. With --group or --tla-module it judges one raft
// group's trace (tla.GroupTrace); with --tla-module DIR it also writes
// that trace as a TLA+ module for TLC (tla/TraceFelixAtomicCommit.tla;
// make tlc-trace runs both). Zero steps judged is no verdict, never valid.
func checkTraceCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check-trace", flag.ContinueOnError)
	b := newBounds(fs)
	nodes := b.Int("nodes", 0, 0, modeltrace.HeaderBrokersMax, "brokers in the cluster that wrote the trace, for a trace without a header (an older felixsim's); a trace's header says it (0: the header's)")
	group := b.Int("group", -1, -1, math.MaxInt32, "judge only this raft group's steps (-1: all; default with --tla-module: the group of the first rejected step, else the lowest)")
	moduleDir := fs.String("tla-module", "", "write the group's trace as "+tla.TraceModuleName+".tla and .cfg into this directory")
	if code, done := parseFlags(fs, args, checkTraceHelp, stdout, stderr); done {
		return code
	}
	if err := b.check(); err != nil {
		return usageError(stderr, "check-trace", err)
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "check-trace", fmt.Errorf("want one trace file, got %d", fs.NArg()))
	}
	if *moduleDir != "" {
		if err := artifact.Prepare(*moduleDir); err != nil {
			return usageError(stderr, "check-trace", fmt.Errorf("--tla-module: %w", err))
		}
	}
	file, brokers, err := readTrace(fs.Arg(0), *nodes, *nodes != 0)
	if err != nil {
		return usageError(stderr, "check-trace", err)
	}
	steps := file.Steps
	out := checkTraceJSON{Brokers: brokers, Incomplete: file.Incomplete}
	if *group >= 0 || *moduleDir != "" {
		g, ok := pickGroup(steps, int64(*group), brokers)
		if ok {
			out.Group = &g
			steps = tla.GroupTrace(steps, g)
		}
	}
	if len(steps) == 0 || file.Version < len(modeltrace.FormatVersions) {
		out.NoVerdict = noStepsReason(fs.Arg(0), int64(*group))
		if len(steps) > 0 {
			out.NoVerdict = oldFormatReason(fs.Arg(0), file.Version)
		}
		writeJSONLine(stdout, out)
		fmt.Fprintf(stderr, "felixsim check-trace: no verdict: %s\n", out.NoVerdict)
		return exitIncomplete
	}
	if *moduleDir != "" {
		files, err := writeTraceModule(*moduleDir, steps, brokers, fmt.Sprintf("%s, raft group %d", filepath.Base(fs.Arg(0)), *out.Group))
		if err != nil {
			fmt.Fprintf(stderr, "felixsim check-trace: %v\n", err)
			return exitUsage
		}
		out.Module = files
	}
	out.TraceResult = tla.ValidateTrace(steps, brokers)
	return checkTraceVerdict(out, file, fs.Arg(0), stdout, stderr)
}

// checkTraceVerdict prints the result and returns the exit code: a
// rejected step of a trace whose end line is missing (cut short) is a
// violation, as the steps before the cut happened; a trace that validates
// but is not known whole, or whose end line does not match its lines (not
// what was written), has no verdict.
func checkTraceVerdict(out checkTraceJSON, file *modeltrace.Trace, path string, stdout, stderr io.Writer) int {
	switch {
	case file.Altered:
		out.NoVerdict = fmt.Sprintf("%s is not what was written: %s", path, file.Incomplete)
	case out.Valid && file.Incomplete != "":
		out.NoVerdict = fmt.Sprintf("%s is incomplete: %s; its %d steps are valid, but what followed them was not judged", path, file.Incomplete, len(file.Steps))
	}
	if out.NoVerdict != "" {
		out.Valid = false
		writeJSONLine(stdout, out)
		fmt.Fprintf(stderr, "felixsim check-trace: no verdict: %s\n", out.NoVerdict)
		return exitIncomplete
	}
	writeJSONLine(stdout, out)
	if !out.Valid {
		return exitSafety
	}
	return exitPass
}

// oldFormatReason says why a trace of an older format is read but not
// judged: its steps lack fields the model's rules read (version 3 added
// them), and judging them without would refuse good steps or pass bad
// ones.
func oldFormatReason(path string, version int) string {
	format := "no header (an older felixsim's)"
	if version > 0 {
		format = fmt.Sprintf("format %q", modeltrace.FormatVersions[version-1])
	}
	return fmt.Sprintf("%s has %s, which predates the fields the model's rules judge (%s: read indexes, append terms, apply errors, retention points); export it again with this felixsim (run --trace-out)",
		path, format, modeltrace.TraceFormat)
}

// noStepsReason says why there is nothing to judge.
func noStepsReason(path string, group int64) string {
	if group >= 0 {
		return fmt.Sprintf("%s holds no step of raft group %d", path, group)
	}
	return fmt.Sprintf("%s holds no step", path)
}

// modelTraceBytesMax caps an exported model trace check-trace reads (a
// 60 s run's is a few MB).
const modelTraceBytesMax = 4 << 30

// readTrace reads an exported trace and its broker count: the header's,
// or for a trace without one (an older felixsim's) the --nodes given. A
// file that is not a regular file (a device, a pipe) is refused.
func readTrace(path string, nodes int, nodesGiven bool) (*modeltrace.Trace, int, error) {
	if nodesGiven && (nodes < 1 || nodes > modeltrace.HeaderBrokersMax) {
		return nil, 0, fmt.Errorf("--nodes %d refused: want 1..%d", nodes, modeltrace.HeaderBrokersMax)
	}
	f, err := artifact.OpenInput(path, "model trace", modelTraceBytesMax)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	t, err := modeltrace.Read(f)
	switch {
	case err != nil:
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	case t.Header == nil && len(t.Steps) == 0:
		return t, nodes, nil // nothing to judge: no verdict, whatever the count
	case t.Header == nil && !nodesGiven:
		return nil, 0, fmt.Errorf("%s has no header naming its broker count (an older felixsim wrote it): give --nodes", path)
	case t.Header == nil:
		return t, nodes, nil
	case nodesGiven && nodes != t.Header.Brokers:
		return nil, 0, fmt.Errorf("--nodes %d refused: %s says its cluster had %d brokers", nodes, path, t.Header.Brokers)
	}
	return t, t.Header.Brokers, nil
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
