package world_test

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim/simapi"
	. "github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/sim/world/worldtest"
)

// TestSameSeedSameHash runs seeds twice in this process and compares the
// trace hashes; on a mismatch it reports the first divergent event.
func TestSameSeedSameHash(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		a, errA := runCounter(t, seed, 1_000_000_000, true)
		b, errB := runCounter(t, seed, 1_000_000_000, true)
		if fmt.Sprint(errA) != fmt.Sprint(errB) {
			t.Fatalf("seed %d: outcomes differ: %v vs %v", seed, errA, errB)
		}
		if a.TraceHash() != b.TraceHash() {
			ea, _ := a.Trace()
			eb, _ := b.Trace()
			t.Fatalf("seed %d: hashes %016x vs %016x; %s", seed, a.TraceHash(), b.TraceHash(), FirstDivergence(ea, eb))
		}
	}
}

// TestDifferentSeedsDiverge guards the guard: if the seed did not reach the
// run, every hash would match and the test above would prove nothing.
func TestDifferentSeedsDiverge(t *testing.T) {
	a, _ := runCounter(t, 1, 1_000_000_000, true)
	b, _ := runCounter(t, 2, 1_000_000_000, true)
	if a.TraceHash() == b.TraceHash() {
		t.Fatal("seeds 1 and 2 produced the same trace hash")
	}
	ea, _ := a.Trace()
	eb, _ := b.Trace()
	d := FirstDivergence(ea, eb)
	if d.IdenticalTrace || !strings.Contains(d.String(), "first divergence at event") {
		t.Fatalf("FirstDivergence did not locate the difference: %s", d)
	}
}

const childSeedsEnv = "FELIXSIM_SIM_CHILD_SEEDS"

// TestChildProcessHash re-executes this test binary and compares the hashes
// the child computes with this process's.
func TestChildProcessHash(t *testing.T) {
	const seeds = 5
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childSeedsEnv+"="+strconv.Itoa(seeds))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	got := map[uint64]string{}
	for _, line := range strings.Split(string(out), "\n") {
		var seed uint64
		var hash string
		if n, _ := fmt.Sscanf(line, "childhash %d %s", &seed, &hash); n == 2 {
			got[seed] = hash
		}
	}
	if len(got) != seeds {
		t.Fatalf("child reported %d hashes, want %d:\n%s", len(got), seeds, out)
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		w, _ := runCounter(t, seed, 1_000_000_000, false)
		if want := fmt.Sprintf("%016x", w.TraceHash()); got[seed] != want {
			t.Fatalf("seed %d: child hash %s, parent %s", seed, got[seed], want)
		}
	}
}

// TestMain lets this test binary act as the child of TestChildProcessHash:
// with the environment variable set it prints the hashes and exits without
// running any test.
func TestMain(m *testing.M) {
	if v := os.Getenv(childSeedsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s=%q: %v\n", childSeedsEnv, v, err)
			os.Exit(2)
		}
		for seed := uint64(1); seed <= uint64(n); seed++ {
			w, _ := runCounter(childTB{}, seed, 1_000_000_000, false)
			fmt.Printf("childhash %d %016x\n", seed, w.TraceHash())
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childTB is the testing.TB the child process hands runCounter: a fatal
// error ends the child with a message and a non-zero status.
type childTB struct{ testing.TB }

func (childTB) Fatal(args ...any) {
	fmt.Fprintln(os.Stderr, args...)
	os.Exit(1)
}

// TestThousandSeeds runs 1000 short seeds twice each without one mismatch.
func TestThousandSeeds(t *testing.T) {
	seeds := uint64(1000)
	if testing.Short() {
		seeds = 200
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		a, _ := runCounter(t, seed, 200_000_000, false)
		b, _ := runCounter(t, seed, 200_000_000, false)
		if a.TraceHash() != b.TraceHash() {
			ra, _ := runCounter(t, seed, 200_000_000, true)
			rb, _ := runCounter(t, seed, 200_000_000, true)
			ea, _ := ra.Trace()
			eb, _ := rb.Trace()
			t.Fatalf("seed %d: hash mismatch %016x vs %016x; %s", seed, a.TraceHash(), b.TraceHash(), FirstDivergence(ea, eb))
		}
	}
}

// mapOrderProc is a planted determinism bug: it picks the message it sends
// by ranging over a map, whose order Go randomizes per iteration.
type mapOrderProc struct{ env simapi.Env }

func (p *mapOrderProc) Boot(env simapi.Env) {
	p.env = env
	var tick func()
	tick = func() {
		choices := map[uint64]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true}
		for v := range choices { //det:ok planted nondeterminism, the bug this test must catch
			p.env.Send(1-p.env.ID(), worldtest.ProbeMsg(v))
			break
		}
		p.env.AfterNs(1_000_000, tick)
	}
	env.AfterNs(1_000_000, tick)
}
func (p *mapOrderProc) Receive(int, simapi.Message) {}

// TestHashCatchesPlantedNondeterminism: a process whose behaviour depends
// on map order makes two runs of one seed hash differently, and
// FirstDivergence names the first event that differs.
func TestHashCatchesPlantedNondeterminism(t *testing.T) {
	run := func() *World {
		spec := NodeSpec{Name: "maporder", New: func() simapi.Process { return &mapOrderProc{} }}
		w, err := New(Config{Seed: 1, Nodes: []NodeSpec{spec, spec}, Link: worldtest.FixedLink, RecordTrace: true})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		w.RunFor(100_000_000)
		return w
	}
	a, b := run(), run()
	if a.TraceHash() == b.TraceHash() {
		t.Fatal("two runs of a map-order-dependent process hashed the same: the trace hash misses message content")
	}
	ea, _ := a.Trace()
	eb, _ := b.Trace()
	d := FirstDivergence(ea, eb)
	if d.IdenticalTrace || d.A.Kind != EvDeliver || d.A.Detail == d.B.Detail {
		t.Fatalf("divergence not located at a delivery: %s", d)
	}
}
