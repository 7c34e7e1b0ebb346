package runner

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// childSeedEnv names the seed a child test process runs (TestChildRun).
const childSeedEnv = "FELIXSIM_RUNNER_CHILD_SEED"

// crossProcessOptions are the runs compared across processes.
func crossProcessOptions(seed uint64) Options {
	return Options{Seed: seed, DurationNs: 5e9, FaultGapMeanNs: 4e8}
}

// TestChildRun is the child half of TestTraceHashAcrossProcesses: it runs
// the seed it is given and prints the trace hash. Without the variable it
// skips: it is not a test on its own, only the re-executed child.
func TestChildRun(t *testing.T) {
	s := os.Getenv(childSeedEnv)
	if s == "" {
		t.Skip("child process only")
	}
	seed, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(crossProcessOptions(seed))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("CHILD-TRACE-HASH %016x\n", res.TraceHash)
}

// TestTraceHashAcrossProcesses: a seed run in this process and again in a
// fresh process (the test binary re-executed) gives the same trace hash.
func TestTraceHashAcrossProcesses(t *testing.T) {
	for _, seed := range []uint64{3, 17} {
		res, err := Run(crossProcessOptions(seed))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run", "^TestChildRun$", "-test.count", "1")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", childSeedEnv, seed))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child for seed %d: %v\n%s", seed, err, out)
		}
		want := fmt.Sprintf("CHILD-TRACE-HASH %016x", res.TraceHash)
		if !strings.Contains(string(out), want) {
			t.Fatalf("seed %d: child process printed\n%s\nwant %s", seed, out, want)
		}
	}
}
