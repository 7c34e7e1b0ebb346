package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/artifact"
	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/verdict"
	"github.com/felixsim/felixsim/tla"
	"golang.org/x/term"
)

// runJSON is the object `felixsim run --json` prints.
type runJSON struct {
	Seed       uint64             `json:"seed"`
	TraceHash  string             `json:"trace_hash"`
	Violations []runner.Violation `json:"violations"`
	// FirstFindings names each violated invariant once with its earliest
	// finding (the summary's lines, report.json's, the timeline's).
	FirstFindings []runner.FirstFinding `json:"first_findings"`
	Ops           runOpsJSON            `json:"ops"`
	Retries       int                   `json:"retries"`
	// OpSlots is, per workload client, how many operations it drew (a
	// plan's ops lines number them; `felixsim shrink` reads this).
	OpSlots []int `json:"op_slots"`
	// Linearizable counts the scopes by linearizability verdict; unknown
	// (search budget spent) is neither a pass nor a violation.
	Linearizable runner.LinearizableCounts `json:"linearizable"`
	Faults       int                       `json:"faults"`
	Events       uint64                    `json:"events"`
	// EventsByKind counts the events by kind (deliver, timer, ...).
	EventsByKind map[string]uint64 `json:"events_by_kind"`
	// ReplacedBrokers are brokers that lost their store and rejoined
	// under a new identity through a membership change.
	ReplacedBrokers []runner.Replacement `json:"replaced_brokers"`
	// StreamChanges are the operator's deletes and creates of the
	// administered stream (absent when the plan drew none).
	StreamChanges []runner.StreamChange `json:"stream_changes,omitempty"`
	// StreamChangesUnlistedFromNs is when the first change past the
	// list's cap was asked (absent: every change is listed).
	StreamChangesUnlistedFromNs int64 `json:"stream_changes_unlisted_from_ns,omitempty"`
	// KeysLost counts the keys clients put that the final state lacks:
	// dropped by retention, or otherwise (a violation).
	KeysLost   properties.KeysLost `json:"keys_lost"`
	SimSeconds float64             `json:"sim_seconds"`
	// WallSeconds is measured here in cmd, around the run; the simulated
	// path never reads the wall clock.
	WallSeconds float64 `json:"wall_seconds"`
	Reproduce   string  `json:"reproduce"`
	// TraceValidation is the abstract trace's validation against the
	// model (absent with --validate-trace=false).
	TraceValidation *tla.TraceResult `json:"trace_validation,omitempty"`
	// TraceActions counts the model actions the validated trace took.
	TraceActions map[string]int `json:"trace_actions,omitempty"`
	// ModelStates is the projected model states the trace visited against
	// the mirror's reachable ones (tla/README.md, "Model coverage").
	ModelStates *tla.StateCoverage `json:"model_states,omitempty"`
	// Coverage counts the paths the run took, by point name: every fault
	// kind as fault.<kind>.fired and fault.<kind>.effect, and the points
	// package coverage declares.
	Coverage map[string]uint64 `json:"coverage"`
	// Progress is what the checks had to judge; Vacuous is true when it
	// fell under the floor (VacuousReason says why).
	Progress      runProgressJSON `json:"progress"`
	Vacuous       bool            `json:"vacuous"`
	VacuousReason string          `json:"vacuous_reason,omitempty"`
	// PlanTraceHash is the trace hash the --plan file records, and
	// Reproduced whether this run produced it (both absent without one).
	PlanTraceHash string `json:"plan_trace_hash,omitempty"`
	Reproduced    bool   `json:"reproduced,omitempty"`
	// Density is the raft work per simulated second the brokers asked of
	// etcd raft (runner.Density): what make bench-floor's bare raft
	// harness replays.
	Density runner.Density `json:"density"`
	// Verdict is the command's verdict by the one rule (package verdict:
	// the run's findings, a divergence, an output not written), and
	// ExitCode the code the command exits with.
	Verdict  verdict.Verdict `json:"verdict"`
	ExitCode int             `json:"exit_code"`
	// Unwritten names each output that could not be written, and why.
	Unwritten []string `json:"unwritten,omitempty"`
}

type runProgressJSON struct {
	AckedWrites  int `json:"acked_writes"`
	CheckedReads int `json:"checked_reads"`
}

type runOpsJSON struct {
	Total   int `json:"total"`
	OK      int `json:"ok"`
	Refused int `json:"refused"`
	Failed  int `json:"failed"`
	Unknown int `json:"unknown"`
	Pending int `json:"pending"`
}

// runHelp is `felixsim run --help` besides the flags.
var runHelp = help{
	usage: "run --seed N [--nodes 3] [--streams 1] [--shards 4] [--duration 60s] [--faults LIST|all|none] [--defects LIST]\n       [--clients 4] [--client-start-spread 0s] [--fault-gap 2s] [--liveness-budget 30s] [--quiesce-budget 20s] [--plan FILE] [--history FILE] [--out DIR] [--trace-out FILE] [--validate-trace=false] [--check-determinism] [--json]\n       felixsim run --list-invariants | --list-faults",
	examples: []example{
		{cmd: "felixsim run --seed 42", does: "one seed, every fault kind, 60 s of faults", exit: exitPass},
		{cmd: "felixsim run --seed 3 --duration 10s --defects commit-as-two-records --json", does: "a planted bug caught, as JSON", exit: exitSafety},
		{cmd: "felixsim run --seed 42 --duration 10s --check-determinism", does: "twice in one process, hashes compared", exit: exitPass},
		{cmd: "felixsim run --seed 3 --duration 8s --defects ack-before-quorum --out seed3", does: "keep the artifact: plan, history, trace, timeline", exit: exitSafety},
		{cmd: "felixsim run --plan seed3/plan.txt", does: "the saved run again, from its plan file alone", exit: exitSafety},
		{cmd: "felixsim run --list-invariants", does: "every invariant, its family and its statement", exit: exitPass},
		{cmd: "felixsim run --list-faults", does: "every fault kind a plan may hold", exit: exitPass},
	},
	exits: "the most serious finding decides: 1 a safety invariant failed (whatever came after: a crash, an output not written),\n" +
		"4 a liveness invariant failed (no safety one), 5 with --plan: the run did not reproduce the trace hash the plan records\n" +
		"(and violated nothing), 3 no verdict with nothing violated: the simulated system panicked, --check-determinism found the\n" +
		"two runs differ, the history could not be kept (it goes to a scratch file in $TMPDIR past 8,192 operations), or an output\n" +
		"(--out, --history, --trace-out) could not be written (the verdict is printed first); 0 every check held; 2 bad usage (nothing ran)\n" +
		"('felixsim run --list-invariants' lists every invariant and its family)",
}

// runArgs is what `felixsim run`'s flags ask for.
type runArgs struct {
	opts runner.Options
	// planMeta is the run description of the --plan file (zero without
	// one): the run must reproduce the trace hash it records.
	planMeta       artifact.Meta
	historyFile    string
	outDir         string
	traceOut       string
	asJSON         bool
	listInvariants bool
	listFaults     bool
	checkDet       bool
	force          bool
}

// parseRunArgs reads `felixsim run`'s flags into runner options; done
// says the command is over (help printed, or bad usage reported) with
// exit code code.
func parseRunArgs(args []string, stdout, stderr io.Writer) (ra runArgs, code int, done bool) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	b := newBounds(fs)
	rf := addRunFlags(fs, b)
	planFile := fs.String("plan", "", "run this saved plan `FILE` (felixsim run --out DIR's DIR/plan.txt) instead of drawing one from the seed: it records the whole run, so other flags may only repeat what it says; the run must reproduce its trace hash")
	fs.StringVar(&ra.historyFile, "history", "", "write the workload's history (every operation, JSON lines after a felixsim-history v2 line) to `FILE`")
	fs.StringVar(&ra.outDir, "out", "", "write the run's artifact directory `DIR`: plan.txt (with revision and expected hash), history.jsonl, report.json, events.ndjson (the event trace), timeline.html; felixsim replay DIR re-runs it. A DIR that exists and holds files is refused unless --force")
	fs.StringVar(&ra.traceOut, "trace-out", "", "write the brokers' abstract (model) trace (modeltrace steps, JSON lines; felixsim check-trace reads it) to `FILE`, outside any --out directory")
	validateTrace := fs.Bool("validate-trace", true, "validate the brokers' abstract trace against the model FelixAtomicCommit (a rejection is "+string(tla.TraceNotInModel)+")")
	fs.BoolVar(&ra.asJSON, "json", false, "print one JSON object instead of the summary")
	fs.BoolVar(&ra.listInvariants, "list-invariants", false, "print every invariant the run checks, its family and what it states, then exit")
	fs.BoolVar(&ra.listFaults, "list-faults", false, "print the fault kinds (name, meaning, fields with units, what counts as an effect) and exit")
	fs.BoolVar(&ra.force, "force", false, "write into an --out directory that exists and holds files (its artifact files are replaced)")
	fs.BoolVar(&ra.checkDet, "check-determinism", false, "run the seed twice in this process and compare the trace hashes; a mismatch names the first diverging event and exits 3")
	if code, done := parseFlags(fs, args, runHelp, stdout, stderr); done {
		return ra, code, true
	}
	if ra.listInvariants || ra.listFaults {
		return ra, exitPass, false
	}
	err := b.check()
	var opts runner.Options
	if err == nil {
		opts, err = rf.options()
	}
	opts.ValidateTrace = *validateTrace
	if err == nil && *planFile == "" && !flagSet(fs, "seed") {
		err = fmt.Errorf("--seed is required")
	}
	if err == nil && *planFile != "" {
		opts, ra.planMeta, err = artifact.LoadRun(*planFile, opts, func(name string) bool { return flagSet(fs, name) })
	}
	if err == nil {
		err = opts.Validate()
	}
	if err == nil && ra.checkDet && (ra.outDir != "" || ra.historyFile != "" || ra.traceOut != "") {
		err = fmt.Errorf("--check-determinism refused with --out, --history or --trace-out: it runs twice and writes nothing")
	}
	if err != nil {
		return ra, usageError(stderr, "run", err), true
	}
	ra.opts = opts
	return ra, exitPass, false
}

// runCommand is `felixsim run`: it parses flags into runner.Options, runs,
// and prints a summary (or one JSON object); it returns the exit code.
func runCommand(args []string, stdout, stderr io.Writer) int {
	ra, code, done := parseRunArgs(args, stdout, stderr)
	switch {
	case done:
		return code
	case ra.listInvariants:
		writeInvariants(stdout)
		return exitPass
	case ra.listFaults:
		fmt.Fprint(stdout, faultplan.FaultTable())
		return exitPass
	case ra.checkDet:
		return checkDeterminism(ra.opts, ra.asJSON, stdout, stderr)
	}
	if err := ra.outputs().Check(ra.force); err != nil {
		return usageError(stderr, "run", fmt.Errorf("%w (nothing ran)", err))
	}
	opts := ra.opts
	opts.KeepHistory = ra.historyFile != ""
	if ra.outDir != "" {
		opts = artifact.Recording(opts)
	}
	export, closeExport, err := openTraceExport(ra.traceOut, &opts)
	if err != nil {
		return usageError(stderr, "run", fmt.Errorf("%w (nothing ran)", err))
	}
	finish := runProgress(&opts, stderr)
	start := time.Now()
	res, err := runner.Run(opts)
	wall := time.Since(start)
	finish()
	if err != nil {
		closeExport()
		return runError(stderr, "run", err)
	}
	unwritten := ra.writeOutputs(res, export, closeExport)
	diverged := ra.planMeta.CheckReproduced(res.TraceHash)
	v := res.Verdict()
	if diverged != nil {
		v = verdict.Worst(v, verdict.Diverged)
	}
	if len(unwritten) > 0 {
		v = verdict.Worst(v, verdict.NoVerdict)
	}
	ra.report(res, wall, v, diverged, unwritten, stdout)
	for _, u := range unwritten {
		fmt.Fprintf(stderr, "felixsim run: %v; %s\n", u, unwrittenNote(res.Verdict(), v))
	}
	if ra.opts.PlanPath != "" && !ra.planMeta.HasTraceHash {
		fmt.Fprintf(stderr, "felixsim run: %s records no trace hash: nothing was compared (this run is not checked to be the saved one)\n", ra.opts.PlanPath)
	}
	if diverged != nil {
		fmt.Fprintf(stderr, "felixsim run: DIVERGED: %v; `felixsim replay --plan %s --trace TRACE` names the first diverging event (exit %d)\n",
			diverged, runner.ShellQuote(ra.opts.PlanPath), v.ExitCode())
	}
	return v.ExitCode()
}

// unwrittenNote says what a missing output does to the command's verdict
// v, given the run's own: a failing run's verdict stands; a passing run
// has none without the output it was asked for.
func unwrittenNote(run, v verdict.Verdict) string {
	if run == verdict.Pass {
		return fmt.Sprintf("the run passed, but without this output it has no verdict (exit %d)", v.ExitCode())
	}
	return fmt.Sprintf("the verdict above stands (exit %d)", v.ExitCode())
}

// outputs are the files the run reads and writes, checked before it runs.
func (ra *runArgs) outputs() *artifact.Outputs {
	var o artifact.Outputs
	o.File("--history", ra.historyFile)
	o.File("--trace-out", ra.traceOut)
	o.Dir("--out", ra.outDir, artifact.Files...)
	o.Input("--plan", ra.opts.PlanPath)
	return &o
}

// openTraceExport creates the --trace-out file (none when path is empty)
// and sets opts to stream the brokers' abstract trace into it; close
// closes the file (a no-op without one).
func openTraceExport(path string, opts *runner.Options) (export *modeltrace.NDJSON, close func() error, err error) {
	if path == "" {
		return nil, func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--trace-out %w", err)
	}
	export = modeltrace.NewNDJSON(f)
	export.WriteHeader(modeltrace.Header{Brokers: opts.WithDefaults().Brokers})
	opts.TraceExport = export
	return export, f.Close, nil
}

// writeOutputs saves what the run was asked to keep: the model trace,
// the history, the artifact directory. It returns one error per output
// that could not be written, each naming its flag and file; the others
// are still written.
func (ra *runArgs) writeOutputs(res *runner.Result, export *modeltrace.NDJSON, closeExport func() error) []error {
	var out []error
	if export != nil {
		if err := errors.Join(export.End(), closeExport()); err != nil {
			out = append(out, fmt.Errorf("--trace-out %s not written: %w", ra.traceOut, err))
		}
	}
	if ra.historyFile != "" {
		if err := writeHistory(ra.historyFile, res.History); err != nil {
			out = append(out, fmt.Errorf("--history %s not written: %w", ra.historyFile, err))
		}
	}
	if ra.outDir != "" {
		if err := artifact.Write(ra.outDir, res, artifact.Revision()); err != nil {
			out = append(out, fmt.Errorf("--out %s not written: %w", ra.outDir, err))
		}
	}
	return out
}

// report prints the run's verdict: the summary, or one JSON object.
func (ra *runArgs) report(res *runner.Result, wall time.Duration, v verdict.Verdict, diverged error, unwritten []error, stdout io.Writer) {
	if ra.asJSON {
		out := runJSONOf(res, wall)
		out.Verdict, out.ExitCode = v, v.ExitCode()
		if ra.planMeta.HasTraceHash {
			out.PlanTraceHash = fmt.Sprintf("%016x", ra.planMeta.TraceHash)
			out.Reproduced = diverged == nil
		}
		for _, u := range unwritten {
			out.Unwritten = append(out.Unwritten, u.Error())
		}
		writeJSONLine(stdout, out)
		return
	}
	fmt.Fprint(stdout, res.Summary())
	if ra.outDir != "" && len(unwritten) == 0 {
		fmt.Fprintf(stdout, "artifacts: %s (timeline %s; `felixsim replay %s` re-runs it)\n",
			ra.outDir, filepath.Join(ra.outDir, artifact.TimelineFile), runner.ShellQuote(ra.outDir))
	}
}

// exitCodeOf is a run's exit code: its verdict's (runner.Result.Verdict).
func exitCodeOf(res *runner.Result) int { return res.Verdict().ExitCode() }

// writeHistory saves a run's history in the properties encoding.
func writeHistory(path string, h *properties.History) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(properties.EncodeHistory(f, h), f.Close())
}

// flagSet reports whether the named flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// runJSONOf is the JSON form of one run's result.
func runJSONOf(res *runner.Result, wall time.Duration) runJSON {
	out := runJSON{Seed: res.Seed, TraceHash: fmt.Sprintf("%016x", res.TraceHash), Violations: res.Violations,
		Ops:     runOpsJSON{Total: res.Ops.Total, OK: res.Ops.OK, Refused: res.Ops.Refused, Failed: res.Ops.Failed, Unknown: res.Ops.Unknown, Pending: res.Ops.Pending},
		Retries: res.Retries, Linearizable: res.Linearizable, Faults: len(res.Plan.Faults), Events: res.Events, EventsByKind: res.EventsByKind.Map(), ReplacedBrokers: res.Replaced,
		StreamChanges: res.StreamChanges, StreamChangesUnlistedFromNs: res.StreamChangesUnlistedFromNs, KeysLost: res.KeysLost,
		SimSeconds: float64(res.SimNs) / 1e9, WallSeconds: wall.Seconds(), Reproduce: res.ReproduceCommand(),
		TraceValidation: res.TraceValidation, ModelStates: res.ModelStates,
		Coverage: res.Coverage.Map(), Progress: runProgressJSON{AckedWrites: res.Progress.AckedWrites, CheckedReads: res.Progress.CheckedReads},
		Vacuous: res.Vacuous != "", VacuousReason: res.Vacuous}
	if res.TraceCoverage != nil {
		out.TraceActions = res.TraceCoverage.Actions
	}
	out.Density = res.Density
	out.Verdict = res.Verdict()
	out.ExitCode = out.Verdict.ExitCode()
	if out.Violations == nil {
		out.Violations = []runner.Violation{}
	}
	if out.FirstFindings = runner.FirstFindings(res.Violations); out.FirstFindings == nil {
		out.FirstFindings = []runner.FirstFinding{}
	}
	if out.OpSlots = res.OpSlots; out.OpSlots == nil {
		out.OpSlots = []int{}
	}
	if out.ReplacedBrokers == nil {
		out.ReplacedBrokers = []runner.Replacement{}
	}
	return out
}

// writeJSONLine prints v as one line of JSON; v is a type of this package,
// so a failure to marshal it is a programming error.
func writeJSONLine(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("felixsim: %T does not marshal: %v", v, err))
	}
	fmt.Fprintf(w, "%s\n", b)
}

// runProgressEvery is how often a run on a terminal redraws its progress.
const runProgressEvery = 200 * time.Millisecond

// runProgress shows a run's progress on stderr, one line rewritten in
// place, when stderr is a terminal (a log or a pipe gets nothing); the
// returned function clears the line.
func runProgress(opts *runner.Options, stderr io.Writer) (finish func()) {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return func() {}
	}
	var last time.Time
	drawn := false
	opts.Progress = func(p runner.RunProgress) {
		if time.Since(last) < runProgressEvery {
			return
		}
		last, drawn = time.Now(), true
		phase := "faults"
		if p.SimNs > p.DurationNs {
			phase = "heal and checks"
		}
		fmt.Fprintf(f, "\rrun: %.0f of %.0f simulated s (%s), %d operations, %d faults\x1b[K", float64(p.SimNs)/1e9, float64(p.DurationNs)/1e9, phase, p.Ops, p.Faults)
	}
	return func() {
		if drawn {
			fmt.Fprint(f, "\r\x1b[K")
		}
	}
}
