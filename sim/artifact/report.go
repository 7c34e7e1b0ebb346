package artifact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/verdict"
)

// Report is report.json: the run's verdict, its violations with the
// operations that show them, and how to reproduce it.
type Report struct {
	Format string `json:"format"`
	Seed   uint64 `json:"seed"`
	// Verdict is the run's by the one rule (package verdict): safety,
	// liveness, no verdict or pass; ExitCode is `felixsim run`'s for it.
	Verdict    verdict.Verdict    `json:"verdict"`
	ExitCode   int                `json:"exit_code"`
	TraceHash  string             `json:"trace_hash"`
	Revision   string             `json:"felixsim_revision"`
	Violations []runner.Violation `json:"violations"`
	// FirstFindings names each violated invariant once with its earliest
	// finding: its time, operations and scope (runner.FirstFindings).
	FirstFindings []runner.FirstFinding `json:"first_findings"`
	Ops           map[string]int        `json:"ops"`
	Events        uint64                `json:"events"`
	SimSeconds    float64               `json:"sim_seconds"`
	Faults        int                   `json:"faults"`
	Reproduce     string                `json:"reproduce"`
	// Replay re-runs this artifact and checks its hash.
	Replay string `json:"replay"`
}

// reportFormat names report.json's format, on its first line. v2: the
// verdict is the one rule's (a safety violation decides over a crash) in
// lower case, with its exit code; each violation carries its earliest
// finding (first, findings, scope, evidence and time are that finding's),
// and first_findings names each invariant once. v1 said PASS, FAIL or
// CRASH, a crash deciding, and dated a violation by the operations its
// whole message named.
const reportFormat = "felixsim-report v2"

// WriteReport writes res as report.json for the artifact in dir.
func WriteReport(w io.Writer, res *runner.Result, revision, dir string) error {
	vs := res.Violations
	if vs == nil {
		vs = []runner.Violation{}
	}
	firsts := runner.FirstFindings(vs)
	if firsts == nil {
		firsts = []runner.FirstFinding{}
	}
	o := res.Ops
	r := Report{Format: reportFormat, Seed: res.Seed, Verdict: res.Verdict(), ExitCode: res.Verdict().ExitCode(), TraceHash: fmt.Sprintf("%016x", res.TraceHash),
		Revision: revision, Violations: vs, FirstFindings: firsts, Events: res.Events, SimSeconds: float64(res.SimNs) / 1e9, Faults: len(res.Plan.Faults),
		Ops:       map[string]int{"total": o.Total, "ok": o.OK, "refused": o.Refused, "failed": o.Failed, "unknown": o.Unknown, "pending": o.Pending},
		Reproduce: res.ReproduceCommand(), Replay: "felixsim replay " + runner.ShellQuote(dir)}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	// The format on the first line: `{"format": "felixsim-report v2",`.
	b = append([]byte("{"), bytes.TrimPrefix(b, []byte("{\n  "))...)
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReportBytesMax caps a report.json a reader accepts.
const ReportBytesMax = 64 << 20

// ReadReport reads a report.json written by WriteReport, strictly: its
// format (v2; report.json v1 is not read), no unknown field, nothing after
// the object, and a verdict whose exit code is the one it states.
func ReadReport(path string) (*Report, error) {
	b, err := ReadInput(path, "report", ReportBytesMax)
	if err != nil {
		return nil, err
	}
	r, err := ParseReport(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// ParseReport is ReadReport of a report's bytes.
func ParseReport(b []byte) (*Report, error) {
	first, _, _ := bytes.Cut(b, []byte("\n"))
	if !bytes.Contains(first, []byte(`"format": "`+reportFormat+`"`)) {
		return nil, fmt.Errorf("report refused: line 1 is %.60q, want the format %q on it", first, reportFormat)
	}
	var r Report
	if err := strictJSON(b, &r); err != nil {
		return nil, fmt.Errorf("report refused: %w", err)
	}
	if !r.Verdict.Valid() || r.Verdict.ExitCode() != r.ExitCode {
		return nil, fmt.Errorf("report refused: verdict %q with exit code %d", r.Verdict, r.ExitCode)
	}
	return &r, nil
}
