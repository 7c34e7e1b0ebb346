package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/felixsim/felixsim/sim/runner"
)

var verdictAgreement = flag.Bool("verdict-agreement", false,
	"TestRunAndSweepAgree over seeds 1..10 of every planted defect (make verdict-agreement), not 1..3")

// familyExit is the exit code `felixsim run` gives each family a sweep
// report names, stated apart from the code: safety 1, liveness 4, a
// crash, a timeout or a determinism mismatch 3.
var familyExit = map[string]int{"safety": 1, "liveness": 4, "crash": 3, "determinism": 3}

// TestRunAndSweepAgree is issue 32's acceptance: for every planted
// defect, `felixsim run` of each seed and `felixsim sweep` of the seeds
// give the same family (the run's exit code; the sweep's failing seed's
// family, or none for a pass), and the sweep exits with the most serious
// of its seeds' codes (safety 1 over liveness 4 over no verdict 3).
// 10 s runs, seeds 1..3 in make test; 1..10 with -verdict-agreement
// (make verdict-agreement, about 3 minutes on 2 cores).
func TestRunAndSweepAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a sweep per planted defect")
	}
	last := 3
	if *verdictAgreement {
		last = 10
	}
	bin, err := builtBinary()
	if err != nil {
		t.Fatalf("building felixsim: %v", err)
	}
	felixsimBin := filepath.Join(bin, "felixsim")
	defects := strings.Split(runner.DefectNames(), ",")
	seen := map[int]int{}
	for _, d := range defects {
		runs := runExits(t, felixsimBin, d, last)
		code, families := sweepFamilies(t, felixsimBin, d, last)
		worst := 0
		for seed := 1; seed <= last; seed++ {
			want := familyExit[families[seed]] // 0: the sweep lists it as passing
			if runs[seed] != want {
				t.Errorf("%s seed %d: felixsim run exits %d, felixsim sweep lists family %q (exit %d)", d, seed, runs[seed], families[seed], want)
			}
			worst = worstExit(worst, runs[seed])
			seen[runs[seed]]++
		}
		if code != worst {
			t.Errorf("%s seeds 1..%d: felixsim sweep exits %d, the most serious of its seeds' run exits is %d (%v)", d, last, code, worst, runs[1:])
		}
	}
	t.Logf("%d defects x seeds 1..%d: run exits by code %v", len(defects), last, seen)
}

// worstExit is the more serious of two run exit codes, by the rule stated
// apart: safety 1, then liveness 4, then no verdict 3, then pass 0.
func worstExit(a, b int) int {
	rank := map[int]int{0: 0, 3: 1, 4: 2, 1: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// runExits runs `felixsim run` for seeds 1..last of defect d, two at a
// time, and returns each seed's exit code.
func runExits(t *testing.T, bin, d string, last int) []int {
	t.Helper()
	codes := make([]int, last+1)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2) // two at once: the machine's cores
	for seed := 1; seed <= last; seed++ {
		wg.Add(1)
		go func(seed int) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			err := exec.Command(bin, "run", "--seed", strconv.Itoa(seed), "--duration", "10s", "--defects", d).Run()
			var exit *exec.ExitError
			switch {
			case err == nil:
			case errors.As(err, &exit):
				codes[seed] = exit.ExitCode()
			default:
				codes[seed] = -1
			}
		}(seed)
	}
	wg.Wait()
	return codes
}

// sweepFamilies runs `felixsim sweep` over seeds 1..last of defect d and
// returns its exit code and each failing seed's family.
func sweepFamilies(t *testing.T, bin, d string, last int) (int, map[int]string) {
	t.Helper()
	cmd := exec.Command(bin, "sweep", "--seeds", fmt.Sprintf("1..%d", last), "--duration", "10s", "--defects", d,
		"--repeat-fraction", "0", "--jobs", "2", "--json")
	out, err := cmd.Output()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: sweep: %v", d, err)
	}
	var rep struct {
		Verdict  string `json:"verdict"`
		Failures []struct {
			Seed   int    `json:"seed"`
			Family string `json:"family"`
		} `json:"failures"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%s: sweep exit %d printed no report: %v\n%s", d, code, err, out)
	}
	families := map[int]string{}
	for _, f := range rep.Failures {
		families[f.Seed] = f.Family
	}
	return code, families
}
