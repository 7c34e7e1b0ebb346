package runner

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim/world"
)

// TestCheckDeterminismRealSeedPasses: a real seed, every fault kind, runs
// twice in one process to one hash and no divergence is reported.
func TestCheckDeterminismRealSeedPasses(t *testing.T) {
	c, err := CheckDeterminism(Options{Seed: 7, DurationNs: 2e9, FaultGapMeanNs: 2e8})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Deterministic() || c.Divergence != nil {
		t.Fatalf("seed 7 not deterministic: %s", c)
	}
	if len(c.First.Trace) == 0 || uint64(len(c.First.Trace)) != c.First.Events {
		t.Fatalf("trace not recorded: %d events kept of %d", len(c.First.Trace), c.First.Events)
	}
	if !strings.Contains(c.String(), "both trace hashes") {
		t.Fatalf("report: %s", c)
	}
}

// TestCheckDeterminismValidatesTheFirstRun: a sweep's repeated seeds run
// only the determinism check, so its verdict must carry the trace
// validation a plain run does, and the second run, which only reproduces
// the hash, must not pay for it again.
func TestCheckDeterminismValidatesTheFirstRun(t *testing.T) {
	var validated []bool
	spy := func(o Options) (*Result, error) {
		validated = append(validated, o.ValidateTrace)
		return Run(o)
	}
	c, err := checkDeterminism(Options{Seed: 7, DurationNs: 2e9, FaultGapMeanNs: 2e8, ValidateTrace: true}, spy)
	if err != nil {
		t.Fatal(err)
	}
	if len(validated) != 2 || !validated[0] || validated[1] {
		t.Fatalf("runs validated their traces %v, want [true false]", validated)
	}
	if tv := c.First.TraceValidation; tv == nil || tv.Steps == 0 {
		t.Fatalf("first run's verdict has no trace validation: %+v", tv)
	}
	if !c.Deterministic() {
		t.Fatalf("validating one run changed its hash: %s", c)
	}
}

// plantedAtNs and plantedDetail mark the event the planted leak adds.
const (
	plantedAtNs   = 1_234_567_890
	plantedDetail = 0xbad5eed
)

// TestCheckDeterminismCatchesPlantedLeak plants what a process-global leak
// looks like: a counter that survives from the first run into the second,
// which then schedules one extra event at a known time. The check must
// report a mismatch and name that very event (its time and detail are the
// test's, not the code's) as the first divergence.
func TestCheckDeterminismCatchesPlantedLeak(t *testing.T) {
	runs := 0 // the leak: state outside the run
	leaky := func(o Options) (*Result, error) {
		runs++
		return runWith(o, func(r *run) {
			if runs > 1 {
				r.c.World.At(plantedAtNs, plantedDetail, func() {})
			}
		})
	}
	c, err := checkDeterminism(Options{Seed: 7, DurationNs: 2e9, FaultGapMeanNs: 2e8}, leaky)
	if err != nil {
		t.Fatal(err)
	}
	if c.Deterministic() || c.Divergence == nil {
		t.Fatalf("planted leak not caught: %s", c)
	}
	d := c.Divergence
	if d.IdenticalTrace || d.Index == 0 || d.B.Kind != world.EvCall || d.B.AtNs != plantedAtNs || d.B.Detail != plantedDetail {
		t.Fatalf("divergence not at the planted event (t=%d detail=%x): %s", int64(plantedAtNs), plantedDetail, d)
	}
	if d.A.AtNs < plantedAtNs {
		t.Fatalf("run A's event at the divergence is before the planted time: %s", d)
	}
	if s := c.String(); !strings.Contains(s, "trace hashes differ") || !strings.Contains(s, "first divergence at event") {
		t.Fatalf("report does not name the divergence: %s", s)
	}
}
