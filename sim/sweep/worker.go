package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/felixsim/felixsim/sim/verdict"
)

// Invariant names a Failure carries when the run could not say which
// property failed.
const (
	// InvariantDeterminism: the seed's two runs in one process hashed differently.
	InvariantDeterminism = "Determinism"
	// InvariantProcessCrash: the worker process died with a Go runtime
	// stack (a panic outside the simulation, a fatal error) instead of a verdict.
	InvariantProcessCrash = "ProcessCrash"
	// InvariantSeedTimeout: the run reached no verdict within the sweep's
	// per-seed wall-clock budget.
	InvariantSeedTimeout = "SeedTimeout"
)

// MessageLenMax caps a failure's message in a report.
const MessageLenMax = 500

// runOutput is the part of `felixsim run --json` the sweep reads.
type runOutput struct {
	Seed        uint64      `json:"seed"`
	TraceHash   string      `json:"trace_hash"`
	Violations  []violation `json:"violations"`
	Reproduce   string      `json:"reproduce"`
	Determinism *struct {
		Deterministic bool   `json:"deterministic"`
		Divergence    string `json:"divergence"`
	} `json:"determinism"`
	// Coverage is nil when the run printed no "coverage" object.
	Coverage      map[string]uint64 `json:"coverage"`
	Vacuous       bool              `json:"vacuous"`
	VacuousReason string            `json:"vacuous_reason"`
	// ModelStates is nil when the run validated no trace.
	ModelStates *struct {
		States []uint64 `json:"states"`
	} `json:"model_states"`
	// Verdict and ExitCode are the run's own statement of its verdict
	// (nil ExitCode: a run older than the field).
	Verdict  string `json:"verdict"`
	ExitCode *int   `json:"exit_code"`
}

// job is one seed to run and its steering arm (an index into
// Options.SteerArms; -1 for none).
type job struct {
	seed uint64
	arm  int
}

// seedResult is one seed's outcome: a failure, or nil for a pass.
type seedResult struct {
	seed     uint64
	repeated bool
	failure  *Failure
	// counts are the run's coverage counts (nil when it reported none);
	// vacuous is its vacuous reason ("" when it was not vacuous).
	counts  map[string]uint64
	vacuous string
	// cpuSeconds is the user and system CPU time the worker process used
	// (its rusage, read once it exited; 0 if it did not start).
	cpuSeconds float64
	// stdout is the worker's output, kept for --out.
	stdout []byte
	// arm is the seed's steering arm (-1: none); states the projected
	// model states its run visited (nil when it reported none).
	arm    int
	states []uint64
}

// runArgs is the worker's command line for seed.
func (o *Options) runArgs(seed uint64, repeated bool, arm int) []string {
	args := []string{"run", "--seed", strconv.FormatUint(seed, 10), "--json",
		"--duration", o.Duration.String(), "--faults", o.Faults, "--defects", o.Defects}
	if arm >= 0 {
		args = append(args, "--steer", o.SteerArms[arm])
	}
	if repeated {
		args = append(args, "--check-determinism")
	}
	return args
}

// runSeed runs one seed in a fresh worker process and classifies its
// outcome. An error means the sweep cannot trust the worker (bad usage,
// output it cannot read) and must stop.
func (o *Options) runSeed(ctx context.Context, j job) (seedResult, error) {
	seed := j.seed
	repeated := Repeated(seed, o.RepeatFraction)
	res := seedResult{seed: seed, repeated: repeated, arm: j.arm}
	sctx := ctx
	if o.SeedTimeout > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, o.SeedTimeout)
		defer cancel()
	}
	args := o.runArgs(seed, repeated, j.arm)
	cmd := exec.CommandContext(sctx, o.Binary, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res.stdout = stdout.Bytes()
	if ps := cmd.ProcessState; ps != nil {
		res.cpuSeconds = (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	code := 0
	var exitErr *exec.ExitError
	switch {
	case errors.Is(sctx.Err(), context.DeadlineExceeded):
		res.failure = &Failure{Seed: seed, Invariant: InvariantSeedTimeout, Family: FamilyCrash, ExitCode: -1,
			Message:   fmt.Sprintf("no verdict within %s of wall time", o.SeedTimeout),
			Reproduce: "felixsim " + strings.Join(args, " ")}
		return res, nil
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		return res, fmt.Errorf("seed %d: worker %s did not run: %w", seed, o.Binary, err)
	}
	f, out, err := classify(seed, code, stdout.Bytes(), stderr.String(), args)
	res.failure = f
	if out != nil {
		res.counts = out.Coverage
		if out.ModelStates != nil {
			res.states = append([]uint64{}, out.ModelStates.States...)
		}
		if out.Vacuous {
			res.vacuous = clipMessage(out.VacuousReason)
		}
	}
	return res, err
}

// classify turns a worker's exit code and output into a failure (nil for
// a pass) and the run's output (nil when the worker crashed), or an error
// when the output does not keep the protocol.
func classify(seed uint64, code int, stdout []byte, stderr string, args []string) (*Failure, *runOutput, error) {
	if code == exitUsage || code < 0 {
		if crash := GoCrash(stderr); crash != "" {
			return &Failure{Seed: seed, Invariant: InvariantProcessCrash, Family: FamilyCrash, ExitCode: code,
				Message: clipMessage(crash), Reproduce: "felixsim " + strings.Join(args, " ")}, nil, nil
		}
		return nil, nil, fmt.Errorf("seed %d: worker exited %d: %s", seed, code, FirstLine(stderr))
	}
	out, err := decodeRunOutput(seed, code, stdout, stderr)
	if err != nil {
		return nil, nil, err
	}
	v, err := agreedVerdict(seed, code, out)
	if err != nil {
		return nil, nil, err
	}
	mismatch := out.Determinism != nil && !out.Determinism.Deterministic
	switch {
	case v == verdict.Pass && len(out.Violations) == 0 && !mismatch:
		return nil, out, nil
	case len(out.Violations) == 0 && mismatch:
		return &Failure{Seed: seed, Invariant: InvariantDeterminism, Family: FamilyDeterminism, ExitCode: code,
			Message: clipMessage(out.Determinism.Divergence), Reproduce: out.Reproduce + " --check-determinism"}, out, nil
	case len(out.Violations) > 0 && FamilyOf(code) != "":
		d, family := decisive(code, out.Violations)
		msg := d.Message
		if mismatch {
			msg = fmt.Sprintf("%s; and the seed's two runs hashed differently (%s)", msg, out.Determinism.Divergence)
		}
		return &Failure{Seed: seed, Invariant: d.Invariant, Family: family, ExitCode: code,
			Message: clipMessage(msg), Reproduce: out.Reproduce}, out, nil
	}
	return nil, nil, fmt.Errorf("seed %d: worker exited %d (%s) with %d violation(s): the exit code and the verdict disagree", seed, code, v, len(out.Violations))
}

// agreedVerdict is the verdict of a worker's exit code, refused unless
// the run's JSON says the same (its verdict and exit code) and, when the
// registry knows every violated invariant, the one rule gives it too from
// the violations (and a determinism mismatch).
func agreedVerdict(seed uint64, code int, out *runOutput) (verdict.Verdict, error) {
	v, err := verdict.OfExitCode(code)
	if err != nil {
		return v, fmt.Errorf("seed %d: worker exited %d: %w", seed, code, err)
	}
	if out.ExitCode != nil && (*out.ExitCode != code || out.Verdict != v.String()) {
		return v, fmt.Errorf("seed %d: worker exited %d (%s) but its report says verdict %q, exit %d", seed, code, v, out.Verdict, *out.ExitCode)
	}
	known := true
	for _, x := range out.Violations {
		_, ok := familyOfInvariant(x.Invariant)
		known = known && ok
	}
	want := runVerdict(out.Violations)
	if out.Determinism != nil && !out.Determinism.Deterministic {
		want = verdict.Worst(want, verdict.NoVerdict)
	}
	if known && want != v {
		return v, fmt.Errorf("seed %d: worker exited %d (%s), but its %d violation(s) give %s: the exit code and the verdict disagree", seed, code, v, len(out.Violations), want)
	}
	return v, nil
}

// decodeRunOutput reads the worker's one JSON object and refuses output
// that does not describe this seed: another seed, no reproduce command, a
// vacuous run without its reason, a coverage point without a name.
func decodeRunOutput(seed uint64, code int, stdout []byte, stderr string) (*runOutput, error) {
	var out runOutput
	dec := json.NewDecoder(bytes.NewReader(stdout))
	if err := dec.Decode(&out); err != nil || dec.More() {
		return nil, fmt.Errorf("seed %d: worker exited %d without one JSON object on stdout (%v): %s", seed, code, err, FirstLine(stderr))
	}
	if out.Seed != seed || out.Reproduce == "" {
		return nil, fmt.Errorf("seed %d: worker reported seed %d and reproduce %q", seed, out.Seed, out.Reproduce)
	}
	if out.Vacuous == (strings.TrimSpace(out.VacuousReason) == "") {
		return nil, fmt.Errorf("seed %d: worker reported vacuous %v with reason %q: a vacuous run names its reason, and only a vacuous one", seed, out.Vacuous, out.VacuousReason)
	}
	if _, empty := out.Coverage[""]; empty {
		return nil, fmt.Errorf("seed %d: worker reported a coverage point with an empty name", seed)
	}
	return &out, nil
}

// GoCrash returns the first line of a Go runtime crash report on a
// worker's stderr ("panic: …", "fatal error: …"), or "" when it holds none;
// sweep and shrink both read their `felixsim run` workers with it.
func GoCrash(stderr string) string {
	if !strings.Contains(stderr, "goroutine ") {
		return ""
	}
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") {
			return line
		}
	}
	return ""
}

// FirstLine is s's first non-blank line, or a note that s is empty: one
// line of a worker's stderr for an error message.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if line, _, ok := strings.Cut(s, "\n"); ok {
		return line
	}
	if s == "" {
		return "(no message on stderr)"
	}
	return s
}

// clipMessage keeps a message to MessageLenMax bytes on one line, without
// the goroutine stack a crash's message carries: its argument words are
// addresses, which differ between processes, so a report holding them
// would not be the same from one sweep to the next (the reproduce command
// prints the stack).
func clipMessage(s string) string {
	if before, _, ok := strings.Cut(s, "\ngoroutine "); ok {
		s = before
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= MessageLenMax {
		return s
	}
	cut := MessageLenMax
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
