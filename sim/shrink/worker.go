package shrink

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/artifact"
	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/sweep"
	"github.com/felixsim/felixsim/sim/verdict"
)

// outcome is what one run of a candidate plan showed.
type outcome struct {
	// invariants are the violated invariants, in report order.
	invariants []properties.InvariantName
	// crash is set when the worker process died outside the simulation
	// (a Go runtime crash report on stderr) instead of reporting.
	crash     string
	traceHash string
	// faults and ops size the run: the plan's faults and the operations
	// the workload invoked (history ops: retries and acks included).
	faults, ops int
	// opSlots is, per client, how many operations it drew.
	opSlots []int
	// evidence is, per entry of invariants, the operations that finding
	// names (runner.Violation.Evidence; often none).
	evidence [][]runner.Evidence
	wall     time.Duration
}

// fails reports whether the run violated inv.
func (o *outcome) fails(inv properties.InvariantName) bool {
	for _, v := range o.invariants {
		if v == inv {
			return true
		}
	}
	return false
}

// evidenceOf is the evidence of inv's first finding that names any
// operation; nil when none does.
func (o *outcome) evidenceOf(inv properties.InvariantName) []runner.Evidence {
	for i, v := range o.invariants {
		if v == inv && i < len(o.evidence) && len(o.evidence[i]) > 0 {
			return o.evidence[i]
		}
	}
	return nil
}

// evidenceEndNs is when the last operation a finding names was answered
// (invoked, if it never was); 0 when it names none.
func evidenceEndNs(ev []runner.Evidence) int64 {
	var end int64
	for _, e := range ev {
		end = max(end, e.InvokeNs, e.CompleteNs)
	}
	return end
}

// outcomeOf is a run's outcome from its Result (the baseline and the
// verification run in this process).
func outcomeOf(res *runner.Result, wall time.Duration) *outcome {
	o := &outcome{traceHash: fmt.Sprintf("%016x", res.TraceHash), faults: len(res.Plan.Faults), ops: res.Ops.Total,
		opSlots: append([]int(nil), res.OpSlots...), wall: wall}
	for _, v := range res.Violations {
		o.invariants = append(o.invariants, v.Invariant)
		o.evidence = append(o.evidence, v.Evidence)
	}
	return o
}

// runJSON is the part of `felixsim run --json` a worker's answer is read by.
type runJSON struct {
	TraceHash  string `json:"trace_hash"`
	Violations []struct {
		Invariant properties.InvariantName `json:"invariant"`
		Evidence  []runner.Evidence        `json:"evidence"`
	} `json:"violations"`
	Ops struct {
		Total int `json:"total"`
	} `json:"ops"`
	OpSlots []int `json:"op_slots"`
	Faults  int   `json:"faults"`
	// Verdict and ExitCode are the run's statement of its verdict.
	Verdict  string `json:"verdict"`
	ExitCode int    `json:"exit_code"`
}

// agrees refuses a worker's answer whose exit code, stated verdict and
// violations do not give one verdict by the one rule, or that has no
// trace hash.
func agrees(code int, v verdict.Verdict, out *runJSON) error {
	names := make([]properties.InvariantName, len(out.Violations))
	for i, x := range out.Violations {
		names[i] = x.Invariant
	}
	want, err := verdict.OfInvariants(names)
	switch {
	case err != nil:
		return fmt.Errorf("shrink: worker exited %d: %w", code, err)
	case want != v || out.Verdict != v.String() || out.ExitCode != code || out.TraceHash == "":
		return fmt.Errorf("shrink: worker exited %d (%s) stating verdict %q, exit %d, with %d violation(s) (%s by the one rule) and trace hash %q: they disagree",
			code, v, out.Verdict, out.ExitCode, len(out.Violations), want, out.TraceHash)
	}
	return nil
}

// workerArgs is the command line that runs the candidate plan file at
// planPath: the file describes its whole run (artifact.WritePlan).
func workerArgs(planPath string) []string {
	return []string{"run", "--plan", planPath, "--json"}
}

// runWorker runs plan p in a fresh `felixsim run` process (one simulation
// per process: the determinism guards are process-global) and reads its
// verdict. name names the plan file in dir. An error means the worker
// could not be trusted (it refused the plan, or its output breaks the
// protocol) or ctx ended.
func runWorker(ctx context.Context, binary, dir, name string, o *runner.Options, p *faultplan.Plan) (*outcome, error) {
	path := filepath.Join(dir, name)
	var text bytes.Buffer
	if err := artifact.WritePlan(&text, p, artifact.MetaOf(*o, artifact.Revision())); err != nil {
		return nil, fmt.Errorf("shrink: candidate plan: %w", err)
	}
	if err := os.WriteFile(path, text.Bytes(), 0o644); err != nil {
		return nil, fmt.Errorf("shrink: candidate plan: %w", err)
	}
	defer os.Remove(path)
	start := time.Now()
	cmd := exec.CommandContext(ctx, binary, workerArgs(path)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	wall := time.Since(start)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	code := 0
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		return nil, fmt.Errorf("shrink: worker %s did not run: %w", binary, err)
	}
	return readWorker(code, stdout.Bytes(), stderr.String(), wall)
}

// readWorker classifies a worker's exit code and output.
func readWorker(code int, stdout []byte, stderr string, wall time.Duration) (*outcome, error) {
	if crash := sweep.GoCrash(stderr); crash != "" {
		return &outcome{crash: crash, wall: wall}, nil
	}
	v, err := verdict.OfExitCode(code)
	if err != nil || v == verdict.Diverged { // a candidate plan records no trace hash to diverge from
		return nil, fmt.Errorf("shrink: worker exited %d: %s", code, sweep.FirstLine(stderr))
	}
	var out runJSON
	dec := json.NewDecoder(bytes.NewReader(stdout))
	if err := dec.Decode(&out); err != nil || dec.More() {
		return nil, fmt.Errorf("shrink: worker exited %d without one JSON object on stdout (%v): %s", code, err, sweep.FirstLine(stderr))
	}
	if err := agrees(code, v, &out); err != nil {
		return nil, err
	}
	o := &outcome{traceHash: out.TraceHash, faults: out.Faults, ops: out.Ops.Total, opSlots: out.OpSlots, wall: wall}
	for _, v := range out.Violations {
		o.invariants = append(o.invariants, v.Invariant)
		o.evidence = append(o.evidence, v.Evidence)
	}
	return o, nil
}
