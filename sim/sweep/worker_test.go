package sweep

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fakeWorker writes a shell script that stands in for felixsim: it answers
// `run --seed N ...` with what body prints for seed $3. It lets a test
// plant what a real run never does on demand: a hash mismatch, a Go
// crash, a hang, a broken protocol.
func fakeWorker(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fake-felixsim")
	script := "#!/bin/sh\nseed=$3\n" + body + "\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// passJSON is a passing run's output for $seed.
const passJSON = `echo '{"seed":'$seed',"trace_hash":"00","violations":[],"reproduce":"felixsim run --seed '$seed'"}'`

func fakeOptions(bin, seeds string) Options {
	rg, err := ParseRange(seeds)
	if err != nil {
		panic(err)
	}
	return Options{Binary: bin, Seeds: rg, Jobs: 2, Duration: time.Second, Faults: "all", Defects: "none", SeedTimeout: 2 * time.Second}
}

// TestSweepClassifiesPlantedOutcomes: a planted determinism mismatch, a Go
// runtime crash and a hang each become a failure of their own family with
// a reproduce command; passing seeds count as run.
func TestSweepClassifiesPlantedOutcomes(t *testing.T) {
	bin := fakeWorker(t, `case $seed in
2) echo '{"seed":2,"trace_hash":"aa","violations":[],"reproduce":"felixsim run --seed 2 --duration 1000ms","determinism":{"deterministic":false,"divergence":"first divergence at event 17"}}'; exit 3;;
3) echo 'panic: runtime error: index out of range' >&2; echo 'goroutine 1 [running]:' >&2; exit 2;;
4) exec sleep 30;;
5) echo '{"seed":5,"trace_hash":"bb","violations":[{"invariant":"Liveness","message":"shard 2 led by nobody"}],"reproduce":"felixsim run --seed 5"}'; exit 4;;
*) `+passJSON+`;;
esac`)
	o := fakeOptions(bin, "1..6")
	o.SeedTimeout = 500 * time.Millisecond
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		seed            uint64
		invariant, fam  string
		reproduceSuffix string
	}{
		{2, InvariantDeterminism, FamilyDeterminism, "--seed 2 --duration 1000ms --check-determinism"},
		{3, InvariantProcessCrash, FamilyCrash, "--defects none"},
		{4, InvariantSeedTimeout, FamilyCrash, "--defects none"},
		{5, "Liveness", FamilyLiveness, "--seed 5"},
	}
	if rep.SeedsRun != 6 || !rep.Complete || len(rep.Failures) != len(want) {
		t.Fatalf("report %+v", rep)
	}
	for i, w := range want {
		f := rep.Failures[i]
		if f.Seed != w.seed || f.Invariant != w.invariant || f.Family != w.fam || !strings.HasSuffix(f.Reproduce, w.reproduceSuffix) {
			t.Errorf("failure %d: %+v, want seed %d %s (%s) reproduced by …%s", i, f, w.seed, w.invariant, w.fam, w.reproduceSuffix)
		}
	}
	if !strings.Contains(rep.Failures[0].Message, "event 17") || !strings.HasPrefix(rep.Failures[1].Message, "panic: runtime error") {
		t.Errorf("messages: %q, %q", rep.Failures[0].Message, rep.Failures[1].Message)
	}
}

// TestSweepStopsOnABrokenProtocol: a worker that exits 2 without a Go
// stack (bad usage), or whose exit code contradicts its verdict, or whose
// output is not one JSON object, stops the sweep with an error naming the
// seed, instead of being counted as a pass or a failure; the report of
// the seeds that finished comes with the error, marked incomplete.
func TestSweepStopsOnABrokenProtocol(t *testing.T) {
	for name, body := range map[string]string{
		"usage":                `[ $seed = 3 ] && { echo 'felixsim run: --faults: bad kind' >&2; exit 2; }; ` + passJSON,
		"pass with violations": `[ $seed = 3 ] && { echo '{"seed":3,"violations":[{"invariant":"X","message":""}],"reproduce":"felixsim run --seed 3"}'; exit 0; }; ` + passJSON,
		"no JSON":              `[ $seed = 3 ] && { echo 'hello'; exit 1; }; ` + passJSON,
		"wrong seed":           `[ $seed = 3 ] && { echo '{"seed":4,"violations":[],"reproduce":"felixsim run --seed 4"}'; exit 0; }; ` + passJSON,
		"two objects":          `[ $seed = 3 ] && { echo '{"seed":3,"violations":[],"reproduce":"r"}{}'; exit 0; }; ` + passJSON,
		"vacuous, no reason":   `[ $seed = 3 ] && { echo '{"seed":3,"violations":[],"reproduce":"r","vacuous":true}'; exit 0; }; ` + passJSON,
		"reason, not vacuous":  `[ $seed = 3 ] && { echo '{"seed":3,"violations":[],"reproduce":"r","vacuous_reason":"few"}'; exit 0; }; ` + passJSON,
		"unnamed point":        `[ $seed = 3 ] && { echo '{"seed":3,"violations":[],"reproduce":"r","coverage":{"":1}}'; exit 0; }; ` + passJSON,
	} {
		rep, err := Run(context.Background(), fakeOptions(fakeWorker(t, body), "1..6"))
		if err == nil || !strings.Contains(err.Error(), "seed 3") || rep == nil || rep.Complete || rep.SeedsRun >= 6 {
			t.Errorf("%s: report %+v, error %v; want an error naming seed 3 and an incomplete report", name, rep, err)
		}
	}
}

// TestSweepForStopsInTime: an open range with --for runs until the time
// is up; the seeds that ran are the first ones, without a gap, and the
// report says the sweep is not complete.
func TestSweepForStopsInTime(t *testing.T) {
	o := fakeOptions(fakeWorker(t, "sleep 0.05; "+passJSON), "10..")
	o.For = 600 * time.Millisecond
	start := time.Now()
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("a 600 ms sweep took %s", took)
	}
	if rep.SeedsRun < 2 || rep.Complete || rep.LastSeed != 10+rep.SeedsRun-1 || rep.Seeds != "10.." {
		t.Fatalf("report %+v", rep)
	}
}

// TestSweepInterrupted: a cancelled context stops the sweep with
// ErrInterrupted and a report of the seeds that finished.
func TestSweepInterrupted(t *testing.T) {
	o := fakeOptions(fakeWorker(t, "sleep 0.05; "+passJSON), "1..100000")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	rep, err := Run(ctx, o)
	if !errors.Is(err, ErrInterrupted) || rep == nil || rep.Complete || rep.SeedsRun == 0 || rep.SeedsRun > 1000 {
		t.Fatalf("report %+v, error %v", rep, err)
	}
}

func TestOptionsValidate(t *testing.T) {
	good := fakeOptions("/bin/true", "1..3")
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(*Options){
		"no binary": func(o *Options) { o.Binary = "" },
		"jobs 0":    func(o *Options) { o.Jobs = 0 },
		"jobs huge": func(o *Options) { o.Jobs = JobsMax + 1 },
		"open":      func(o *Options) { o.Seeds = Range{First: 1, Last: 1<<64 - 1, Open: true} },
		"duration":  func(o *Options) { o.Duration = 0 },
		"fraction":  func(o *Options) { o.RepeatFraction = 1.01 },
		"for":       func(o *Options) { o.For = -1 },
		"faults":    func(o *Options) { o.Faults = "" },
		"defects":   func(o *Options) { o.Defects = "a b" },
		"seed 0":    func(o *Options) { o.Seeds = Range{} },
	} {
		o := good
		edit(&o)
		if err := o.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestClassifyListsTheDecisiveInvariant: a seed is listed under the first
// violation whose registered family is the one its exit code stands for,
// with that family (stated here: CommittedNeverLost is safety, Liveness
// liveness); an unregistered name falls back to the exit code's family.
func TestClassifyListsTheDecisiveInvariant(t *testing.T) {
	for _, c := range []struct {
		code     int
		out      string
		inv, fam string
	}{
		{1, `{"seed":1,"violations":[{"invariant":"Liveness","message":"a"},{"invariant":"CommittedNeverLost","message":"b"}],"reproduce":"felixsim run --seed 1"}`, "CommittedNeverLost", "safety"},
		{4, `{"seed":1,"violations":[{"invariant":"Quiesce","message":"a"},{"invariant":"Liveness","message":"b"}],"reproduce":"felixsim run --seed 1"}`, "Quiesce", "liveness"},
		{3, `{"seed":1,"violations":[{"invariant":"Crash","message":"a"}],"reproduce":"felixsim run --seed 1"}`, "Crash", "crash"},
		{1, `{"seed":1,"violations":[{"invariant":"Unregistered","message":"a"}],"reproduce":"felixsim run --seed 1"}`, "Unregistered", "safety"},
	} {
		f, _, err := classify(1, c.code, []byte(c.out), "", nil)
		if err != nil || f == nil || f.Invariant != c.inv || f.Family != c.fam {
			t.Errorf("exit %d %s: %+v, %v; want %s (%s)", c.code, c.out, f, err, c.inv, c.fam)
		}
	}
}

// TestSweepCountsVacuousSeedsAndSumsCoverage: the fake worker reports
// coverage and vacuousness per seed as a run does; the report lists the
// vacuous seeds (a failing one too) in seed order with their reasons, and
// sums the counts of the seeds that reported any (seed 4 crashes and
// reports none; seed 6 is an older binary without a coverage object).
// Every declared point appears, zero included, and a point outside the
// declared ones that a run reported is kept. The totals are stated here:
// raft.failover 1+2+3+5, fault.kill.fired 10 on seed 2 and 20 on seed 5.
func TestSweepCountsVacuousSeedsAndSumsCoverage(t *testing.T) {
	bin := fakeWorker(t, `case $seed in
2) echo '{"seed":2,"violations":[],"reproduce":"felixsim run --seed 2","coverage":{"raft.failover":2,"fault.kill.fired":10},"vacuous":true,"vacuous_reason":"3 acknowledged writes, under the floor of 10"}';;
4) echo 'panic: boom' >&2; echo 'goroutine 1 [running]:' >&2; exit 2;;
5) echo '{"seed":5,"violations":[{"invariant":"CommittedNeverLost","message":"lost"}],"reproduce":"felixsim run --seed 5","coverage":{"raft.failover":5,"fault.kill.fired":20,"new.point":1},"vacuous":true,"vacuous_reason":"0 checked reads"}'; exit 1;;
6) `+passJSON+`;;
*) echo '{"seed":'$seed',"violations":[],"reproduce":"felixsim run --seed '$seed'","coverage":{"raft.failover":'$seed'},"vacuous":false}';;
esac`)
	o := fakeOptions(bin, "1..6")
	o.Points = []string{"raft.failover", "fault.kill.fired", "fault.kill.effect"}
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	wantCov := map[string]uint64{"raft.failover": 1 + 2 + 3 + 5, "fault.kill.fired": 30, "fault.kill.effect": 0, "new.point": 1}
	if rep.CoverageSeeds != 4 || len(rep.Coverage) != len(wantCov) {
		t.Fatalf("coverage over %d seeds: %v, want 4 seeds: %v", rep.CoverageSeeds, rep.Coverage, wantCov)
	}
	for name, n := range wantCov {
		if got, ok := rep.Coverage[name]; !ok || got != n {
			t.Errorf("coverage %s = %d (present %v), want %d", name, got, ok, n)
		}
	}
	if rep.Vacuous != 2 || len(rep.VacuousSeeds) != 2 || rep.VacuousSeeds[0] != (VacuousSeed{2, "3 acknowledged writes, under the floor of 10"}) ||
		rep.VacuousSeeds[1] != (VacuousSeed{5, "0 checked reads"}) {
		t.Fatalf("vacuous %d: %+v", rep.Vacuous, rep.VacuousSeeds)
	}
	if req, opt := rep.NeverHit(); len(req) != 1 || req[0] != "fault.kill.effect" || len(opt) != 0 {
		t.Fatalf("never hit %v, optional %v; want [fault.kill.effect]", req, opt)
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`^vacuous: 2 of 6 seeds \(33\.3%\)$`, `^2 +3 acknowledged writes, under the floor of 10$`, `^5 +0 checked reads$`,
		`^coverage: summed over 4 of 6 seeds, 4 points, 1 never hit$`, `^kill +30 +0$`, `^raft\.failover +11$`, `^new\.point +1$`,
		`^never hit: fault\.kill\.effect$`} {
		if !regexp.MustCompile("(?m)" + want).MatchString(text.String()) {
			t.Errorf("text report lacks a line matching %s:\n%s", want, text.String())
		}
	}
}

// TestClipMessageDropsTheStack: a crash's message loses its goroutine
// stack (addresses differ between processes) and keeps the panic itself;
// other messages keep every word, on one line.
func TestClipMessageDropsTheStack(t *testing.T) {
	crash := "panic at 5 ns: tocommit(68) is out of range\ngoroutine 1 [running]:\nruntime/debug.Stack()\n\tstack.go:26 +0x5e\nmain.f(0xc000123456)"
	if got, want := clipMessage(crash), "panic at 5 ns: tocommit(68) is out of range"; got != want {
		t.Fatalf("clipMessage(crash) = %q, want %q", got, want)
	}
	if got, want := clipMessage("a\n  b\tc"), "a b c"; got != want {
		t.Fatalf("clipMessage = %q, want %q", got, want)
	}
}

// TestClassifyOneVerdict: the no-fsync seed 1 of issue 32 (safety
// violations, then raft's panic) is a safety failure listed under its
// first safety invariant, not a crash; a worker whose exit code, stated
// verdict or violations disagree by the one rule breaks the protocol.
func TestClassifyOneVerdict(t *testing.T) {
	crashAfter := `{"seed":1,"violations":[{"invariant":"StoreMatchesMemory","message":"a"},{"invariant":"Crash","message":"b"}],` +
		`"reproduce":"felixsim run --seed 1","verdict":"safety","exit_code":1}`
	f, _, err := classify(1, 1, []byte(crashAfter), "", nil)
	if err != nil || f == nil || f.Invariant != "StoreMatchesMemory" || f.Family != FamilySafety {
		t.Fatalf("safety then crash: %+v, %v", f, err)
	}
	for _, c := range []struct {
		name string
		code int
		out  string
	}{
		{"a crash first that exits 3", 3, strings.Replace(crashAfter, `"verdict":"safety","exit_code":1`, `"verdict":"no verdict","exit_code":3`, 1)},
		{"stated verdict differs", 1, strings.Replace(crashAfter, `"verdict":"safety"`, `"verdict":"liveness"`, 1)},
		{"stated exit differs", 1, strings.Replace(crashAfter, `"exit_code":1`, `"exit_code":4`, 1)},
		{"liveness exit for a safety violation", 4, `{"seed":1,"violations":[{"invariant":"CommittedNeverLost","message":"b"}],"reproduce":"felixsim run --seed 1"}`},
		{"a pass with a violation", 0, `{"seed":1,"violations":[{"invariant":"Unregistered","message":"b"}],"reproduce":"felixsim run --seed 1"}`},
		{"diverged", 5, `{"seed":1,"violations":[],"reproduce":"felixsim run --seed 1"}`},
	} {
		if f, _, err := classify(1, c.code, []byte(c.out), "", nil); err == nil {
			t.Errorf("%s: accepted as %+v", c.name, f)
		}
	}
	mismatch := `{"seed":1,"violations":[{"invariant":"CommittedNeverLost","message":"lost"}],"reproduce":"felixsim run --seed 1",` +
		`"determinism":{"deterministic":false,"divergence":"event 9 differs"}}`
	f, _, err = classify(1, 1, []byte(mismatch), "", nil)
	if err != nil || f.Family != FamilySafety || !strings.Contains(f.Message, "event 9 differs") {
		t.Fatalf("a safety violation in a nondeterministic seed: %+v, %v; want safety, naming the divergence", f, err)
	}
}

// TestReportVerdictIsTheWorstSeed: a sweep's verdict is its most serious
// seed's (stated here by family), no verdict when no seed ran.
func TestReportVerdictIsTheWorstSeed(t *testing.T) {
	for _, c := range []struct {
		families []string
		want     string
	}{
		{nil, "pass"},
		{[]string{FamilyCrash, FamilyDeterminism}, "no verdict"},
		{[]string{FamilyCrash, FamilyLiveness}, "liveness"},
		{[]string{FamilyLiveness, FamilyCrash, FamilySafety}, "safety"},
	} {
		r := &Report{SeedsRun: 5}
		for i, f := range c.families {
			r.Failures = append(r.Failures, Failure{Seed: uint64(i + 1), Family: f})
		}
		if got := r.Verdict().String(); got != c.want {
			t.Errorf("%v: %s, want %s", c.families, got, c.want)
		}
	}
	if got := (&Report{}).Verdict().String(); got != "no verdict" {
		t.Errorf("no seed run: %s", got)
	}
}
