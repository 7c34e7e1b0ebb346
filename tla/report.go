package tla

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/felixsim/felixsim/properties"
)

// Verdicts a Report gives.
const (
	// VerdictHolds: every invariant held on every reachable state.
	VerdictHolds = "holds"
	// VerdictViolated: an invariant failed; the report carries the trace.
	VerdictViolated = "violated"
	// VerdictExplored: the config checks no invariant (a state count run).
	VerdictExplored = "explored, no invariants checked"
)

// Report is what `felixsim check-model` prints, as text or as one JSON
// object. Seconds is measured by the caller (this package reads no clock).
type Report struct {
	Config          string           `json:"config"`
	Variant         string           `json:"variant"`
	Constants       string           `json:"constants"`
	StatesGenerated int              `json:"states_generated"`
	DistinctStates  int              `json:"distinct_states"`
	Depth           int              `json:"depth"`
	Seconds         float64          `json:"seconds"`
	Verdict         string           `json:"verdict"`
	Violation       *ReportViolation `json:"violation"`
}

// ReportViolation is the violated invariant and its shortest trace.
type ReportViolation struct {
	Invariant properties.InvariantName `json:"invariant"`
	Message   string                   `json:"message"`
	Trace     []Step                   `json:"trace"`
}

// NewReport summarizes an exploration that took seconds.
func NewReport(r *Result, seconds float64) Report {
	rep := Report{
		Config:          r.Config.Name,
		Variant:         r.Config.Variant.String(),
		Constants:       r.Config.String(),
		StatesGenerated: r.Generated,
		DistinctStates:  r.Distinct,
		Depth:           r.Depth,
		Seconds:         seconds,
		Verdict:         VerdictHolds,
	}
	if !r.Config.Invariants {
		rep.Verdict = VerdictExplored
	}
	if v := r.Violation; v != nil {
		rep.Verdict = VerdictViolated
		rep.Violation = &ReportViolation{Invariant: v.Invariant, Message: v.Message, Trace: v.Trace}
	}
	return rep
}

// WriteJSON writes the report as one JSON object and a newline.
func (r Report) WriteJSON(w io.Writer) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // traces show TLA+ sequences as <<...>>
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("check-model report for %s not encoded: %w", r.Config, err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteText writes the report for a person: counts, time, verdict and,
// for a violation, the counterexample step by step.
func (r Report) WriteText(w io.Writer) error {
	perMin := 0.0
	if r.Seconds > 0 {
		perMin = float64(r.DistinctStates) / r.Seconds * 60
	}
	_, err := fmt.Fprintf(w, "config:          %s\nstates generated: %d\ndistinct states: %d\ndepth:           %d\nseconds:         %.3f (%.0f distinct states/min)\nverdict:         %s\n",
		r.Constants, r.StatesGenerated, r.DistinctStates, r.Depth, r.Seconds, perMin, r.Verdict)
	if err != nil || r.Violation == nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "violated:        %s\n  %s\ncounterexample (%d states):\n",
		r.Violation.Invariant, r.Violation.Message, len(r.Violation.Trace)); err != nil {
		return err
	}
	return WriteTrace(w, r.Violation.Trace)
}
