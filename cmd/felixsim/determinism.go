package main

import (
	"fmt"
	"io"
	"time"

	"github.com/felixsim/felixsim/sim/runner"
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
// this process, the first run's report, then the comparison. A mismatch
// exits 3 (no verdict can be trusted); otherwise the run's own exit code.
func checkDeterminism(opts runner.Options, asJSON bool, stdout, stderr io.Writer) int {
	start := time.Now()
	c, err := runner.CheckDeterminism(opts)
	wall := time.Since(start)
	if err != nil {
		return runError(stderr, "run", err)
	}
	if asJSON {
		out := checkJSON{runJSON: runJSONOf(c.First, wall), Determinism: determinismJSON{
			Deterministic: c.Deterministic(), SecondTraceHash: fmt.Sprintf("%016x", c.Second.TraceHash)}}
		if !c.Deterministic() {
			out.Determinism.Divergence = c.String()
		}
		writeJSONLine(stdout, out)
	} else {
		fmt.Fprint(stdout, c.First.Summary())
		fmt.Fprintln(stdout, c.String())
	}
	if !c.Deterministic() {
		return exitIncomplete
	}
	return exitCodeOf(c.First)
}
