package main

import (
	"fmt"
	"io"
	"time"

	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/verdict"
)

// determinismJSON is what `run --check-determinism --json` adds to the
// run's object.
type determinismJSON struct {
	// Deterministic says the two runs hashed the same.
	Deterministic   bool   `json:"deterministic"`
	SecondTraceHash string `json:"second_trace_hash"`
	// Divergence names the first diverging event; empty when deterministic.
	Divergence string `json:"divergence,omitempty"`
}

// checkJSON is the object `run --check-determinism --json` prints: the
// first run's fields and the comparison.
type checkJSON struct {
	runJSON
	Determinism determinismJSON `json:"determinism"`
}

// checkDeterminism is `felixsim run --check-determinism`: the seed twice in
// this process, the first run's report, then the comparison. Its verdict
// is the first run's, or no verdict when the runs differ and the first
// violated nothing (a mismatch cannot hide a safety violation).
func checkDeterminism(opts runner.Options, asJSON bool, stdout, stderr io.Writer) int {
	start := time.Now()
	c, err := runner.CheckDeterminism(opts)
	wall := time.Since(start)
	if err != nil {
		return runError(stderr, "run", err)
	}
	v := c.First.Verdict()
	if !c.Deterministic() {
		v = verdict.Worst(v, verdict.NoVerdict)
	}
	if asJSON {
		out := checkJSON{runJSON: runJSONOf(c.First, wall), Determinism: determinismJSON{
			Deterministic: c.Deterministic(), SecondTraceHash: fmt.Sprintf("%016x", c.Second.TraceHash)}}
		if !c.Deterministic() {
			out.Determinism.Divergence = c.String()
		}
		out.Verdict, out.ExitCode = v, v.ExitCode()
		writeJSONLine(stdout, out)
	} else {
		fmt.Fprint(stdout, c.First.Summary())
		fmt.Fprintln(stdout, c.String())
	}
	return v.ExitCode()
}
