package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim"
	"github.com/felixsim/felixsim/sim/artifact"
	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/tla"
)

// runJSON is the object `felixsim run --json` prints.
type runJSON struct {
	Seed       uint64             `json:"seed"`
	TraceHash  string             `json:"trace_hash"`
	Violations []runner.Violation `json:"violations"`
	Ops        runOpsJSON         `json:"ops"`
	Retries    int                `json:"retries"`
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
	// Density is the raft work per simulated second the brokers asked of
	// etcd raft (runner.Density): what make bench-floor's bare raft
	// harness replays.
	Density runner.Density `json:"density"`
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
	examples: []string{
		"felixsim run --seed 42                         # one seed, every fault kind, 60 s of faults",
		"felixsim run --seed 3 --duration 10s --defects commit-as-two-records --json",
		"felixsim run --seed 42 --check-determinism     # twice in one process, hashes compared",
		"felixsim run --seed 3 --defects ack-before-quorum --out /tmp/seed3 && felixsim replay /tmp/seed3",
		"felixsim run --list-invariants                 # every invariant, its family and its statement",
		"felixsim run --list-faults                     # every fault kind a plan may hold",
	},
	exits: "0 every check held, 1 a safety invariant failed (liveness ones may have failed too), 2 bad usage,\n3 no verdict: the simulated system panicked, or --check-determinism found the two runs differ, 4 only liveness invariants failed\n('felixsim run --list-invariants' lists every invariant and its family)",
}

// runArgs is what `felixsim run`'s flags ask for.
type runArgs struct {
	opts           runner.Options
	historyFile    string
	outDir         string
	traceOut       string
	asJSON         bool
	listInvariants bool
	listFaults     bool
	checkDet       bool
}

// parseRunArgs reads `felixsim run`'s flags into runner options; done
// says the command is over (help printed, or bad usage reported) with
// exit code code.
func parseRunArgs(args []string, stdout, stderr io.Writer) (ra runArgs, code int, done bool) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	seed := fs.Uint64("seed", 0, "the run's seed (required unless --plan): faults, workload, network and raft timeouts all derive from it")
	nodes := fs.Int("nodes", runner.BrokersDefault, "brokers in the cluster")
	streams := fs.Int("streams", runner.StreamsDefault, "streams in the cluster")
	shards := fs.Uint("shards", runner.ShardsDefault, "shards per stream")
	duration := fs.Duration("duration", time.Duration(runner.DurationNsDefault), "simulated fault phase (workload and faults), e.g. 60s")
	faults := fs.String("faults", "all", "fault kinds: all (every fault kind), all,operator (operator actions too), none, or a comma-separated list of sim fault kinds (operator: every operator action)")
	defects := fs.String("defects", "none", "planted broker bugs to switch on: none or "+runner.DefectNames())
	clients := fs.Int("clients", runner.ClientsDefault, "workload clients (tenants alternate)")
	gap := fs.Duration("fault-gap", time.Duration(runner.FaultGapMeanNsDefault), "mean simulated time between drawn faults")
	liveBudget := fs.Duration("liveness-budget", time.Duration(runner.LivenessBudgetNsDefault), "simulated time after heal for every shard to elect a leader and take a commit")
	spread := fs.Duration("client-start-spread", 0, "spread the clients' first invocations over this much of the fault phase (0: all start at once)")
	quietBudget := fs.Duration("quiesce-budget", time.Duration(runner.QuiesceBudgetNsDefault), "simulated time after liveness for every call to complete and every replica to catch up")
	planFile := fs.String("plan", "", "replay this fault plan file (sim's plan format) instead of drawing one from the seed; the seed is the plan's")
	fs.StringVar(&ra.historyFile, "history", "", "write the workload's history (every operation, JSON lines) to this file")
	fs.StringVar(&ra.outDir, "out", "", "write the run's artifact directory here: plan (with revision and expected hash), history, report.json, trace.ndjson, timeline.html; `felixsim replay DIR` re-runs it")
	fs.StringVar(&ra.traceOut, "trace-out", "", "write the brokers' abstract trace (modeltrace steps, JSON lines) to this file")
	validateTrace := fs.Bool("validate-trace", true, "validate the brokers' abstract trace against the model FelixAtomicCommit (a rejection is "+string(tla.TraceNotInModel)+")")
	fs.BoolVar(&ra.asJSON, "json", false, "print one JSON object instead of the summary")
	fs.BoolVar(&ra.listInvariants, "list-invariants", false, "print every invariant the run checks, its family and what it states, then exit")
	fs.BoolVar(&ra.listFaults, "list-faults", false, "print the fault kinds (name, meaning, fields with units, what counts as an effect) and exit")
	fs.BoolVar(&ra.checkDet, "check-determinism", false, "run the seed twice in this process and compare the trace hashes; a mismatch names the first diverging event and exits 3")
	if code, done := parseFlags(fs, args, runHelp, stdout, stderr); done {
		return ra, code, true
	}
	if ra.listInvariants || ra.listFaults {
		return ra, exitPass, false
	}
	opts, err := runOptions(*seed, *nodes, *streams, *shards, *duration, *faults, *defects)
	if err == nil {
		err = budgets(&opts, *clients, *gap, *liveBudget, *quietBudget)
	}
	if *spread < 0 {
		err = fmt.Errorf("--client-start-spread %s refused: negative", *spread)
	}
	opts.ClientStartSpreadNs = spread.Nanoseconds()
	if err == nil && *planFile == "" && !flagSet(fs, "seed") {
		err = fmt.Errorf("--seed is required")
	}
	if err == nil && *planFile != "" {
		err = withPlan(&opts, *planFile, flagSet(fs, "seed"))
	}
	if err == nil {
		err = opts.Validate()
	}
	if err != nil {
		return ra, usageError(stderr, "run", err), true
	}
	opts.ValidateTrace = *validateTrace
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
		fmt.Fprint(stdout, sim.FaultTable())
		return exitPass
	case ra.checkDet:
		return checkDeterminism(ra.opts, ra.asJSON, stdout, stderr)
	}
	if err := checkOutputs(ra.historyFile, ra.outDir); err != nil {
		return usageError(stderr, "run", fmt.Errorf("%w (nothing ran)", err))
	}
	opts := ra.opts
	opts.KeepHistory = ra.historyFile != ""
	if ra.outDir != "" {
		opts = artifact.Recording(opts)
	}
	var export *modeltrace.NDJSON
	if ra.traceOut != "" {
		f, err := os.Create(ra.traceOut)
		if err != nil {
			fmt.Fprintf(stderr, "felixsim run: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		export = modeltrace.NewNDJSON(f)
		opts.TraceExport = export
	}
	start := time.Now()
	res, err := runner.Run(opts)
	wall := time.Since(start)
	if err != nil {
		return usageError(stderr, "run", err)
	}
	if export != nil {
		if err := export.Flush(); err != nil {
			fmt.Fprintf(stderr, "felixsim run: trace export: %v\n", err)
			return exitUsage
		}
	}
	if ra.historyFile != "" {
		if err := writeHistory(ra.historyFile, res.History); err != nil {
			fmt.Fprintf(stderr, "felixsim run: %v\n", err)
			return exitUsage
		}
	}
	if ra.outDir != "" {
		if err := artifact.Write(ra.outDir, res, artifact.Revision()); err != nil {
			fmt.Fprintf(stderr, "felixsim run: %v\n", err)
			return exitUsage
		}
	}
	if ra.asJSON {
		printRunJSON(stdout, res, wall)
	} else {
		fmt.Fprint(stdout, res.Summary())
		if ra.outDir != "" {
			fmt.Fprintf(stdout, "artifacts: %s (timeline %s; `felixsim replay %s` re-runs it)\n",
				ra.outDir, filepath.Join(ra.outDir, artifact.TimelineFile), ra.outDir)
		}
	}
	return exitCodeOf(res)
}

// exitCodeOf maps a run's verdict to its exit code: the family that
// decides it (runner.Result.Worst) picks the code.
func exitCodeOf(res *runner.Result) int {
	fam, failed := res.Worst()
	switch {
	case !failed:
		return exitPass
	case fam == properties.FamilyCrash:
		return exitIncomplete
	case fam == properties.FamilyLiveness:
		return exitLiveness
	}
	return exitSafety
}

func runOptions(seed uint64, nodes, streams int, shards uint, duration time.Duration, faults, defects string) (runner.Options, error) {
	fset, err := runner.ParseFaults(faults)
	if err != nil {
		return runner.Options{}, err
	}
	d, err := runner.ParseDefects(defects)
	if err != nil {
		return runner.Options{}, err
	}
	if nodes <= 0 || streams <= 0 || shards == 0 || shards > runner.ShardsMax || duration <= 0 {
		return runner.Options{}, fmt.Errorf("--nodes %d, --streams %d, --shards %d, --duration %s refused: each must be positive (shards at most %d)",
			nodes, streams, shards, duration, runner.ShardsMax)
	}
	return runner.Options{Seed: seed, Brokers: nodes, Streams: streams, Shards: uint32(shards),
		DurationNs: duration.Nanoseconds(), Faults: fset, Defects: d}, nil
}

// checkOutputs proves the output paths writable before the run starts.
func checkOutputs(historyFile, outDir string) error {
	if historyFile != "" {
		if err := artifact.CheckWritable(historyFile); err != nil {
			return fmt.Errorf("--history %w", err)
		}
	}
	if outDir != "" {
		if err := artifact.Prepare(outDir); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	return nil
}

// budgets sets the rarely changed options: the client count, the fault
// gap and the liveness and quiesce budgets (each must be positive).
func budgets(opts *runner.Options, clients int, gap, liveness, quiesce time.Duration) error {
	if gap <= 0 || liveness <= 0 || quiesce <= 0 {
		return fmt.Errorf("--fault-gap %s, --liveness-budget %s, --quiesce-budget %s refused: each must be positive", gap, liveness, quiesce)
	}
	opts.Clients, opts.FaultGapMeanNs = clients, gap.Nanoseconds()
	opts.LivenessBudgetNs, opts.QuiesceBudgetNs = liveness.Nanoseconds(), quiesce.Nanoseconds()
	return nil
}

// writeHistory saves a run's history in the properties encoding.
func writeHistory(path string, h *properties.History) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--history: %w", err)
	}
	if err := properties.EncodeHistory(f, h); err != nil {
		f.Close()
		return fmt.Errorf("--history %s: %w", path, err)
	}
	return f.Close()
}

// flagSet reports whether the named flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// withPlan loads a plan file into opts: the run takes the plan's seed,
// duration and workload shape; a --seed that disagrees is refused.
func withPlan(opts *runner.Options, path string, seedGiven bool) error {
	text, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--plan: %w", err)
	}
	p, err := sim.ParsePlan(string(text))
	if err != nil {
		return fmt.Errorf("--plan %s: %w", path, err)
	}
	if seedGiven && p.Seed != opts.Seed {
		return fmt.Errorf("--seed %d refused: the plan %s is for seed %d", opts.Seed, path, p.Seed)
	}
	o, err := opts.WithPlan(p)
	if err != nil {
		return fmt.Errorf("--plan %s: %w", path, err)
	}
	o.PlanPath = path
	*opts = o
	return nil
}

func printRunJSON(w io.Writer, res *runner.Result, wall time.Duration) {
	writeJSONLine(w, runJSONOf(res, wall))
}

// runJSONOf is the JSON form of one run's result.
func runJSONOf(res *runner.Result, wall time.Duration) runJSON {
	out := runJSON{Seed: res.Seed, TraceHash: fmt.Sprintf("%016x", res.TraceHash), Violations: res.Violations,
		Ops:     runOpsJSON{Total: res.Ops.Total, OK: res.Ops.OK, Refused: res.Ops.Refused, Failed: res.Ops.Failed, Unknown: res.Ops.Unknown, Pending: res.Ops.Pending},
		Retries: res.Retries, Linearizable: res.Linearizable, Faults: len(res.Plan.Faults), Events: res.Events, EventsByKind: res.EventsByKind.Map(), ReplacedBrokers: res.Replaced,
		StreamChanges: res.StreamChanges, KeysLost: res.KeysLost,
		SimSeconds: float64(res.SimNs) / 1e9, WallSeconds: wall.Seconds(), Reproduce: res.ReproduceCommand(),
		TraceValidation: res.TraceValidation, ModelStates: res.ModelStates,
		Coverage: res.Coverage.Map(), Progress: runProgressJSON{AckedWrites: res.Progress.AckedWrites, CheckedReads: res.Progress.CheckedReads},
		Vacuous: res.Vacuous != "", VacuousReason: res.Vacuous}
	if res.TraceCoverage != nil {
		out.TraceActions = res.TraceCoverage.Actions
	}
	out.Density = res.Density
	if out.Violations == nil {
		out.Violations = []runner.Violation{}
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
