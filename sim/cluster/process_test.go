package cluster

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// childSeedEnv makes the test binary a child that runs one soak seed and
// prints its trace hash.
const childSeedEnv = "FELIXSIM_CLUSTER_CHILD_SEED"

// TestChildSoak is the child half of TestTraceHashAcrossProcesses; it does
// nothing unless the environment names a seed.
func TestChildSoak(t *testing.T) {
	s := os.Getenv(childSeedEnv)
	if s == "" {
		return
	}
	var seed uint64
	if _, err := fmt.Sscan(s, &seed); err != nil {
		t.Fatal(err)
	}
	r := soak(seed, 4*secondNs, soakKinds)
	if r.err != nil {
		t.Fatal(r.err)
	}
	fmt.Printf("trace-hash %016x\n", r.hash)
}

// TestTraceHashAcrossProcesses: a seed's trace hash in a fresh process
// equals the hash in this one (nothing process-local, such as map seeds or
// pointer values, reaches the trace).
func TestTraceHashAcrossProcesses(t *testing.T) {
	if os.Getenv(childSeedEnv) != "" {
		return
	}
	for _, seed := range []uint64{3, 17} {
		local := soak(seed, 4*secondNs, soakKinds)
		if local.err != nil {
			t.Fatal(local.err)
		}
		cmd := exec.Command(os.Args[0], "-test.run", "^TestChildSoak$", "-test.count", "1")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", childSeedEnv, seed))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child for seed %d: %v\n%s", seed, err, out)
		}
		want := fmt.Sprintf("trace-hash %016x", local.hash)
		if !strings.Contains(string(out), want) {
			t.Fatalf("seed %d: child printed %q, this process has %s", seed, out, want)
		}
	}
}
