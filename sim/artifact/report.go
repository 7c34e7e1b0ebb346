package artifact

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/felixsim/felixsim/sim/runner"
)

// Report is report.json: the run's verdict, its violations with the
// operations that show them, and how to reproduce it.
type Report struct {
	Format     string             `json:"format"`
	Seed       uint64             `json:"seed"`
	Verdict    string             `json:"verdict"` // PASS, FAIL or CRASH
	TraceHash  string             `json:"trace_hash"`
	Revision   string             `json:"felixsim_revision"`
	Violations []runner.Violation `json:"violations"`
	Ops        map[string]int     `json:"ops"`
	Events     uint64             `json:"events"`
	SimSeconds float64            `json:"sim_seconds"`
	Faults     int                `json:"faults"`
	Reproduce  string             `json:"reproduce"`
	// Replay re-runs this artifact and checks its hash.
	Replay string `json:"replay"`
}

// reportFormat names report.json's format.
const reportFormat = "felixsim-report v1"

// Verdict is PASS, FAIL, or CRASH (the simulated system panicked).
func Verdict(res *runner.Result) string {
	switch {
	case res.Crashed():
		return "CRASH"
	case !res.OK():
		return "FAIL"
	}
	return "PASS"
}

// WriteReport writes res as report.json for the artifact in dir.
func WriteReport(w io.Writer, res *runner.Result, revision, dir string) error {
	vs := res.Violations
	if vs == nil {
		vs = []runner.Violation{}
	}
	o := res.Ops
	r := Report{Format: reportFormat, Seed: res.Seed, Verdict: Verdict(res), TraceHash: fmt.Sprintf("%016x", res.TraceHash),
		Revision: revision, Violations: vs, Events: res.Events, SimSeconds: float64(res.SimNs) / 1e9, Faults: len(res.Plan.Faults),
		Ops:       map[string]int{"total": o.Total, "ok": o.OK, "refused": o.Refused, "failed": o.Failed, "unknown": o.Unknown, "pending": o.Pending},
		Reproduce: res.ReproduceCommand(), Replay: "felixsim replay " + dir}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
