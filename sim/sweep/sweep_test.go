package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// realOptions sweeps real seeds of the test's felixsim at 2 s each.
func realOptions(seeds string, defects string) Options {
	rg, err := ParseRange(seeds)
	if err != nil {
		panic(err)
	}
	return Options{Binary: felixsim, Seeds: rg, Jobs: 2, Duration: 2 * time.Second, Faults: "all", Defects: defects}
}

// TestSweepPlantedDefectReproduces: with commit written as two records
// every seed breaks an invariant (the defect exists to split what must be
// atomic), so a sweep of seeds 1..3 lists all three; each listed reproduce
// command, run again, fails the same invariant with the same exit code.
func TestSweepPlantedDefectReproduces(t *testing.T) {
	rep, err := Run(context.Background(), realOptions("1..3", "commit-as-two-records"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.SeedsRun != 3 || !rep.Complete || len(rep.Failures) != 3 {
		t.Fatalf("sweep of a planted defect: %+v", rep)
	}
	for i, f := range rep.Failures {
		if f.Seed != uint64(i+1) || f.Family != FamilySafety || f.ExitCode != 1 {
			t.Fatalf("failure %d: %+v", i, f)
		}
		args := strings.Fields(f.Reproduce)
		if args[0] != "felixsim" || args[1] != "run" {
			t.Fatalf("seed %d: reproduce %q is not a felixsim run command", f.Seed, f.Reproduce)
		}
		cmd := exec.Command(felixsim, append(args[1:], "--json")...)
		var out bytes.Buffer
		cmd.Stdout = &out
		err := cmd.Run()
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) || exitErr.ExitCode() != f.ExitCode {
			t.Fatalf("seed %d: reproduce exited %v, want %d", f.Seed, err, f.ExitCode)
		}
		var got runOutput
		if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got.Violations) == 0 || got.Violations[0].Invariant != f.Invariant {
			t.Fatalf("seed %d: reproduce gave %+v (%v), want invariant %s", f.Seed, got.Violations, err, f.Invariant)
		}
	}
}

// TestShardsMergeToTheUnshardedReport runs the CLI end to end: `sweep
// --shard 1/2` and `--shard 2/2` write their JSON reports, `merge` reads
// them back, and the merged report equals the unsharded sweep's, wall time
// aside: failures, vacuous seeds and coverage totals included. The defect
// (no-fsync: a restart loses what was acknowledged) fails some seeds of
// 1..8 and not others, client links cut and brokers paused leave some
// seed vacuous (seed 1),
// and half the seeds run twice, so the failures, the vacuous seeds and the
// counts interleave across shards.
func TestShardsMergeToTheUnshardedReport(t *testing.T) {
	dir := t.TempDir()
	common := []string{"sweep", "--seeds", "1..8", "--duration", "3s", "--faults", "clientcut,restart,pause", "--defects", "no-fsync",
		"--repeat-fraction", "0.5", "--jobs", "2", "--json"}
	sweepTo := func(name string, extra ...string) string {
		path := filepath.Join(dir, name)
		cli(t, path, append(append([]string{}, common...), extra...)...)
		return path
	}
	whole := readFile(t, sweepTo("whole.json"))
	s1, s2 := sweepTo("s1.json", "--shard", "1/2"), sweepTo("s2.json", "--shard", "2/2")
	merged := readFile(t, func() string {
		path := filepath.Join(dir, "merged.json")
		cli(t, path, "merge", "--json", s2, s1)
		return path
	}())
	if !merged.Equal(whole) {
		t.Fatalf("merged shards differ from the unsharded sweep:\nmerged %+v\nwhole  %+v", merged, whole)
	}
	if len(whole.Failures) == 0 || len(whole.Failures) == 8 || whole.SeedsRepeated == 0 || whole.SeedsRepeated == 8 {
		t.Fatalf("the sweep does not mix passing and failing, repeated and single seeds: %+v", whole)
	}
	if a, b := readFile(t, s1), readFile(t, s2); len(a.Failures) == 0 || len(b.Failures) == 0 {
		t.Fatalf("a shard without failures proves little about merging: %+v %+v", a, b)
	}
	if whole.Vacuous == 0 || whole.Vacuous == whole.SeedsRun || whole.CoverageSeeds != 8 || whole.Coverage["fault.clientcut.fired"] == 0 {
		t.Fatalf("the sweep does not mix vacuous and other seeds, or sums no coverage: %+v", whole)
	}
}

// TestSweepTotalsAreTheSumOfItsRuns sweeps seeds 3..6 (client links cut
// for 3 s: seed 6 is vacuous; half the seeds run twice) and runs each seed
// again on its own with `felixsim run --json`; the sweep's coverage totals
// must equal the sums of those runs' counts, computed here, point by point
// (a declared point no run reached as zero), and its vacuous seeds must be
// those runs' vacuous ones with their reasons.
func TestSweepTotalsAreTheSumOfItsRuns(t *testing.T) {
	o := realOptions("3..6", "none")
	o.Faults, o.Duration, o.RepeatFraction = "clientcut", 3*time.Second, 0.5
	o.Points = []string{"raft.failover", "fault.clientcut.fired", "fault.clientcut.effect", "logstore.recover.corrupt"}
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]uint64{} // every declared point, reached or not (no clientcut run reaches logstore.recover.corrupt)
	for _, p := range o.Points {
		sums[p] = 0
	}
	var vacuous []VacuousSeed
	for seed := 3; seed <= 6; seed++ {
		out := runAlone(t, seed, "--duration", "3s", "--faults", "clientcut", "--defects", "none")
		for name, n := range out.Coverage {
			sums[name] += n
		}
		if out.Vacuous {
			vacuous = append(vacuous, VacuousSeed{Seed: uint64(seed), Reason: out.VacuousReason})
		}
	}
	// Four worker processes of a 3 s run each use some CPU, and far less
	// than a minute of it; the report knows its 2 jobs, so the rate and
	// the utilisation are known.
	if rep.CPUSeconds <= 0 || rep.CPUSeconds > 60 || rep.Jobs != 2 || rep.SeedsPerMinute() <= 0 || rep.CPUUtilisation() <= 0 {
		t.Fatalf("the sweep's 4 workers used %v s of CPU with %d jobs (%v seeds per minute, utilisation %v)", rep.CPUSeconds, rep.Jobs, rep.SeedsPerMinute(), rep.CPUUtilisation())
	}
	if rep.CoverageSeeds != 4 || len(rep.Coverage) != len(sums) {
		t.Fatalf("sweep coverage over %d seeds: %v\nsum of the runs: %v", rep.CoverageSeeds, rep.Coverage, sums)
	}
	for name, n := range sums {
		if got, ok := rep.Coverage[name]; !ok || got != n {
			t.Errorf("coverage %s: sweep %d (present %v), sum of the runs %d", name, got, ok, n)
		}
	}
	if sums["fault.clientcut.fired"] == 0 || rep.SeedsRepeated == 0 || rep.SeedsRepeated == 4 {
		t.Fatalf("the sweep proves little: no clientcut fired (%v) or no mix of repeated seeds (%d)", sums, rep.SeedsRepeated)
	}
	if len(vacuous) == 0 || len(rep.VacuousSeeds) != len(vacuous) || rep.Vacuous != uint64(len(vacuous)) {
		t.Fatalf("vacuous seeds: sweep %d %+v, runs %+v (and the test wants at least one)", rep.Vacuous, rep.VacuousSeeds, vacuous)
	}
	for i := range vacuous {
		if rep.VacuousSeeds[i] != vacuous[i] {
			t.Errorf("vacuous seed %d: sweep %+v, run %+v", i, rep.VacuousSeeds[i], vacuous[i])
		}
	}
}

// runAlone runs `felixsim run --seed N --json` with args and decodes it.
func runAlone(t *testing.T, seed int, args ...string) runOutput {
	t.Helper()
	cmd := exec.Command(felixsim, append([]string{"run", "--seed", strconv.Itoa(seed), "--json"}, args...)...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		t.Fatalf("seed %d alone: %v", seed, err)
	}
	var out runOutput
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || out.Coverage == nil {
		t.Fatalf("seed %d alone: output %v without coverage: %s", seed, err, stdout.String())
	}
	return out
}

// cli runs the test's felixsim with args, stdout to path; exit 0 or 1 (a
// failing seed) is expected.
func cli(t *testing.T, path string, args ...string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(felixsim, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = f, &stderr
	err = cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !(errors.As(err, &exitErr) && exitErr.ExitCode() == 1) {
		t.Fatalf("felixsim %v: %v\n%s", args, err, stderr.String())
	}
}

func readFile(t *testing.T, path string) *Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ReadReport(path, f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSweepRepeatsRealSeedsDeterministically: with a repeat fraction of 1
// every seed runs twice in its process and a real seed hashes the same.
func TestSweepRepeatsRealSeedsDeterministically(t *testing.T) {
	o := realOptions("4..5", "none")
	o.RepeatFraction = 1
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.SeedsRun != 2 || rep.SeedsRepeated != 2 || !rep.OK() {
		t.Fatalf("%+v", rep)
	}
}
