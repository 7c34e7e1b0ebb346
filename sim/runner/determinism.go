package runner

import (
	"fmt"

	"github.com/felixsim/felixsim/sim/world"
)

// DeterminismCheck is the outcome of running one seed twice in one process:
// the two results and, when their trace hashes differ, where the recorded
// traces first part.
type DeterminismCheck struct {
	// First and Second are the two runs' results, each with its trace.
	First, Second *Result
	// Divergence locates the first differing event; set only on a mismatch.
	Divergence *world.Divergence
}

// Deterministic reports whether both runs hashed the same.
func (c *DeterminismCheck) Deterministic() bool {
	return c.First.TraceHash == c.Second.TraceHash
}

// String says in one or a few lines whether the runs agreed, and if not,
// the first event where they parted.
func (c *DeterminismCheck) String() string {
	if c.Deterministic() {
		return fmt.Sprintf("determinism: seed %d ran twice in one process, both trace hashes %016x (%d events)",
			c.First.Seed, c.First.TraceHash, c.First.Events)
	}
	where := c.Divergence.String()
	if c.Divergence.IdenticalTrace {
		// Both traces hit the recording cap before they parted.
		where = fmt.Sprintf("the recorded first %d events agree; the runs part after the trace cap", c.Divergence.LenA)
	}
	return fmt.Sprintf("determinism: seed %d ran twice in one process and the trace hashes differ: %016x vs %016x (%d vs %d events); %s",
		c.First.Seed, c.First.TraceHash, c.Second.TraceHash, c.First.Events, c.Second.Events, where)
}

// CheckDeterminism runs opts twice in this process, recording both traces,
// and compares the hashes; on a mismatch it names the first diverging
// event. State that leaks from one run into the next (a process-global the
// run does not reset) shows up here as well as randomness that escapes the
// seed. The first run is the verdict (its checks, and its trace validated
// when opts.ValidateTrace); the second only reproduces the hash, so it
// skips the validation, which reads the run and cannot change it. It
// returns an error only when a run could not be set up.
func CheckDeterminism(opts Options) (*DeterminismCheck, error) {
	return checkDeterminism(opts, Run)
}

// checkDeterminism is CheckDeterminism over a given run function, so a
// test can plant a difference in the second run.
func checkDeterminism(opts Options, runFn func(Options) (*Result, error)) (*DeterminismCheck, error) {
	opts.RecordTrace = true
	a, err := runFn(opts)
	if err != nil {
		return nil, err
	}
	again := opts
	again.ValidateTrace, again.TraceExport = false, nil
	b, err := runFn(again)
	if err != nil {
		return nil, fmt.Errorf("determinism: second run of seed %d: %w", opts.Seed, err)
	}
	c := &DeterminismCheck{First: a, Second: b}
	if !c.Deterministic() {
		d := world.FirstDivergence(a.Trace, b.Trace)
		c.Divergence = &d
	}
	return c, nil
}
