package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSteeringFavoursTheArmThatFindsStates scripts a coverage sequence:
// over three rounds arm "finds" reports states no earlier seed had, arm
// "repeats" only states already found. The oracle is the sequence itself,
// not the weighting code: after the rounds the finding arm must be drawn
// for clearly more of 10,000 seeds than the repeating one, and an arm
// with no record yet for some.
func TestSteeringFavoursTheArmThatFindsStates(t *testing.T) {
	s := newSteering([]string{"repeats", "finds", "untried"})
	next := uint64(1000)
	for round := 0; round < 3; round++ {
		var rr []roundResult
		for i := 0; i < SteerRoundSeeds; i++ {
			seed := uint64(round*SteerRoundSeeds + i + 1)
			if i%2 == 0 {
				rr = append(rr, roundResult{seed: seed, arm: 0, states: []uint64{1, 2, 3}})
				continue
			}
			rr = append(rr, roundResult{seed: seed, arm: 1, states: []uint64{next, next + 1, next + 2}})
			next += 3
		}
		s.credit(rr)
	}
	if got := s.arms[0].NewStates; got != 3 {
		t.Fatalf("the repeating arm is credited %d new states, want the 3 its first seed found", got)
	}
	if got := s.arms[1].NewStates; got != 3*SteerRoundSeeds/2*3 {
		t.Fatalf("the finding arm is credited %d new states, want %d", got, 3*SteerRoundSeeds/2*3)
	}
	w := s.weights()
	var drawn [3]int
	for seed := uint64(1); seed <= 10_000; seed++ {
		drawn[pick(seed, w)]++
	}
	if drawn[1] < 3*drawn[0] || drawn[2] == 0 || drawn[0] == 0 {
		t.Fatalf("after the scripted rounds the arms were drawn %v (weights %v): the finding arm must be drawn at least 3x the repeating one, and every arm some", drawn, w)
	}
	// Before any round every arm weighs the same: the draws are near even.
	var even [3]int
	for seed := uint64(1); seed <= 9_000; seed++ {
		even[pick(seed, newSteering([]string{"a", "b", "c"}).weights())]++
	}
	for i, n := range even {
		if n < 2_700 || n > 3_300 {
			t.Fatalf("arm %d drawn %d of 9,000 times with equal weights: %v", i, n, even)
		}
	}
}

// steeredSweep runs `felixsim sweep --steer` over seeds with jobs workers
// and returns its JSON report's path.
func steeredSweep(t *testing.T, dir, name, seeds, jobs string, extra ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	cli(t, path, append([]string{"sweep", "--seeds", seeds, "--duration", "1s", "--steer", "--repeat-fraction", "0",
		"--jobs", jobs, "--json"}, extra...)...)
	return path
}

// TestSteeredSweepIndependentOfJobs: a steered sweep over three rounds
// gives the same report, arms' records and model states included, with
// one worker and with two (which finish seeds in another order).
func TestSteeredSweepIndependentOfJobs(t *testing.T) {
	dir := t.TempDir()
	seeds := fmt.Sprintf("1..%d", 2*SteerRoundSeeds+2)
	one := readFile(t, steeredSweep(t, dir, "one.json", seeds, "1"))
	two := readFile(t, steeredSweep(t, dir, "two.json", seeds, "2"))
	if !one.Equal(two) {
		a, _ := json.Marshal(one)
		b, _ := json.Marshal(two)
		t.Fatalf("steered sweep differs between --jobs 1 and 2:\n%s\n%s", a, b)
	}
	var seedsRun uint64
	for _, a := range one.SteerArms {
		seedsRun += a.Seeds
	}
	if seedsRun != one.SeedsRun || len(one.ModelStates) == 0 || one.ModelStatesReachable == 0 {
		t.Fatalf("steered report: arms %+v ran %d seeds of %d; %d model states of %d reachable", one.SteerArms, seedsRun, one.SeedsRun,
			len(one.ModelStates), one.ModelStatesReachable)
	}
}

// TestSteeredSeedReproduces: every seed of a steered sweep with a planted
// defect fails; each failure's reproduce line names the seed's arm, and
// running it gives the trace hash the sweep's run had (kept by --out).
func TestSteeredSeedReproduces(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	n := SteerRoundSeeds + 2 // the last two seeds are drawn from the first round's weights
	rep := readFile(t, steeredSweep(t, dir, "rep.json", fmt.Sprintf("1..%d", n), "2", "--defects", "commit-as-two-records", "--out", out))
	if len(rep.Failures) != n {
		t.Fatalf("%d of %d seeds failed, want all", len(rep.Failures), n)
	}
	steered := 0
	for _, f := range rep.Failures {
		if strings.Contains(f.Reproduce, " --steer ") {
			steered++
		}
		saved, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("seed-%d.json", f.Seed)))
		if err != nil {
			t.Fatal(err)
		}
		var was struct {
			TraceHash string `json:"trace_hash"`
		}
		if err := json.Unmarshal(saved, &was); err != nil || was.TraceHash == "" {
			t.Fatalf("seed %d: saved output without a trace hash (%v)", f.Seed, err)
		}
		args := strings.Fields(f.Reproduce)
		cmd := exec.Command(felixsim, append(args[1:], "--json")...)
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		_ = cmd.Run() // it fails, as the sweep's run did
		var again struct {
			TraceHash string `json:"trace_hash"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &again); err != nil || again.TraceHash != was.TraceHash {
			t.Fatalf("seed %d: %q gave trace hash %q (%v), the sweep's run %q", f.Seed, f.Reproduce, again.TraceHash, err, was.TraceHash)
		}
	}
	if steered == 0 {
		t.Fatalf("no failure's reproduce line names a steering arm: %+v", rep.Failures)
	}
}
