package artifact

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/world"
)

// save runs opts with recording on and writes the artifact into a fresh
// directory.
func save(t *testing.T, opts runner.Options) (string, *runner.Result) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "art")
	if err := Prepare(dir); err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(Recording(opts))
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, res, "test-revision"); err != nil {
		t.Fatal(err)
	}
	return dir, res
}

// TestReplayReproducesHash: an artifact of a failing run (a planted bug,
// non-default topology) replays to the same trace hash, verdict and
// operation counts, and its reproduce line is `felixsim replay DIR`.
func TestReplayReproducesHash(t *testing.T) {
	dir, orig := save(t, runner.Options{Seed: 3, Shards: 2, DurationNs: 8e9, Defects: node.Defects{AckBeforeQuorum: true}})
	rep, err := Replay(ReplayOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Reproduced || rep.Result.TraceHash != orig.TraceHash || rep.Result.Ops != orig.Ops || len(rep.Result.Violations) != len(orig.Violations) {
		t.Fatalf("replay: %s\norig %016x %+v, replay %016x %+v", rep, orig.TraceHash, orig.Ops, rep.Result.TraceHash, rep.Result.Ops)
	}
	if rep.Meta.Revision != "test-revision" || rep.Meta.Shards != 2 || rep.Meta.Defects != "ack-before-quorum" {
		t.Fatalf("meta %+v", rep.Meta)
	}
	if got, want := rep.Result.ReproduceCommand(), "felixsim replay "+dir; got != want {
		t.Fatalf("reproduce %q, want %q", got, want)
	}
	for _, f := range []string{PlanFile, HistoryFile, ReportFile, EventsFile, TimelineFile} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Fatalf("%s: %v", f, err)
		}
	}
	byPlan, err := Replay(ReplayOptions{PlanPath: filepath.Join(dir, PlanFile)})
	if err != nil || !byPlan.Reproduced || byPlan.Divergence != nil {
		t.Fatalf("--plan replay: %v %v", err, byPlan)
	}
}

// TestReplayTamperedPlanDiverges: moving one fault of a saved plan 1 ms
// later is reported as diverging at that fault's event in the saved trace
// (found here by counting fault events, independently of FirstDivergence),
// the saved event being the fault and the replayed one something else.
func TestReplayTamperedPlanDiverges(t *testing.T) {
	dir, orig := save(t, runner.Options{Seed: 11, DurationNs: 6e9, FaultGapMeanNs: 5e8})
	if len(orig.Plan.Faults) < 3 {
		t.Fatalf("seed 11 drew %d faults; want 3 or more", len(orig.Plan.Faults))
	}
	k := len(orig.Plan.Faults) / 2
	target := orig.Plan.Faults[k]
	want, seen := -1, 0
	for i, e := range orig.Trace {
		if e.Kind == world.EvFault {
			if seen == k {
				want = i
				break
			}
			seen++
		}
	}
	if want < 0 {
		t.Fatalf("fault %d (%s) not in the trace", k, target)
	}
	path := filepath.Join(dir, PlanFile)
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := "fault " + target.String() + "\n"
	moved := target
	moved.AtNs += 1_000_000
	if next := k + 1; next < len(orig.Plan.Faults) && moved.AtNs > orig.Plan.Faults[next].AtNs {
		t.Fatalf("fault %d moved past fault %d; pick another seed", k, next)
	}
	tampered := strings.Replace(string(text), old, "fault "+moved.String()+"\n", 1)
	if tampered == string(text) {
		t.Fatalf("fault line %q not in the plan", old)
	}
	if err := os.WriteFile(path, []byte(tampered), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Replay(ReplayOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	d := rep.Divergence
	if rep.Reproduced || d == nil || d.Index != want || d.A.Kind != world.EvFault || d.A.AtNs != target.AtNs || d.B == d.A {
		t.Fatalf("want divergence at event %d (fault at %d ns); got %s\n%v", want, target.AtNs, rep, d)
	}
	if s := rep.String(); !strings.Contains(s, fmt.Sprintf("first diverging event %d", want)) || !strings.Contains(s, "DIVERGED") {
		t.Fatalf("report does not name event %d:\n%s", want, s)
	}
}

// TestReplayRefusesTamperedFiles: a plan cut short, a plan whose fault
// line was damaged, a plan whose expected hash is not hex, and a trace
// cut short or with one event altered are refused, naming file and line;
// an altered expected hash with an intact trace is reported as such.
func TestReplayRefusesTamperedFiles(t *testing.T) {
	dir, orig := save(t, runner.Options{Seed: 5, DurationNs: 3e9, FaultGapMeanNs: 5e8})
	planPath, tracePath := filepath.Join(dir, PlanFile), filepath.Join(dir, EventsFile)
	plan, _ := os.ReadFile(planPath)
	trace, _ := os.ReadFile(tracePath)
	lines := strings.SplitAfter(string(plan), "\n")
	// midLine cuts the trace inside the line that holds its middle byte,
	// so the cut never falls on a line's end, whatever the trace holds.
	midLine := len(trace)/2 + strings.IndexByte(string(trace[len(trace)/2:]), '\n') - 3
	cases := []struct {
		name, file, text, want string
	}{
		{"plan cut before its end line", planPath, strings.Join(lines[:len(lines)-3], ""), "truncated"},
		{"plan fault damaged", planPath, strings.Replace(string(plan), "fault at_ns=", "fault at_ns=x", 1), "plan line"},
		{"plan hash not hex", planPath, strings.Replace(string(plan), "# trace-hash: ", "# trace-hash: zz", 1), "plan line 3"},
		{"trace cut short", tracePath, string(trace[:midLine]), "trace line"},
		{"trace event altered", tracePath, strings.Replace(string(trace), `"kind":"timer"`, `"kind":"boot"`, 1), "corrupt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer os.WriteFile(planPath, plan, 0o644)
			defer os.WriteFile(tracePath, trace, 0o644)
			if err := os.WriteFile(c.file, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Replay(ReplayOptions{Dir: dir})
			if err == nil || !strings.Contains(err.Error(), c.file) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v; want a refusal naming %s and %q", err, c.file, c.want)
			}
		})
	}
	other := strings.Replace(string(plan), fmt.Sprintf("%016x", orig.TraceHash), "0123456789abcdef", 1)
	if err := os.WriteFile(planPath, []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Replay(ReplayOptions{Dir: dir})
	if err != nil || rep.Reproduced || rep.Divergence == nil || !rep.Divergence.IdenticalTrace || !strings.Contains(rep.String(), "altered") {
		t.Fatalf("altered expected hash: %v\n%v", err, rep)
	}
}

// TestOldPlanStillReplays: a plan file without meta lines (as `felixsim
// run` wrote them before) loads with the default topology and replays,
// with nothing to compare.
func TestOldPlanStillReplays(t *testing.T) {
	res, err := runner.Run(runner.Options{Seed: 4, DurationNs: 2e9})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "old.plan")
	if err := os.WriteFile(path, []byte(res.Plan.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Replay(ReplayOptions{PlanPath: path})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Meta.HasTraceHash || rep.Result.TraceHash != res.TraceHash || !strings.Contains(rep.String(), "no expected trace hash") {
		t.Fatalf("old plan: %s (hash %016x, want %016x)", rep, rep.Result.TraceHash, res.TraceHash)
	}
}

// TestPrepareRefusesUnwritable: a directory that cannot be written is
// refused before any run.
func TestPrepareRefusesUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, []byte("x"), 0o644)
	if err := Prepare(file); err == nil {
		t.Fatal("a file accepted as an artifact directory")
	}
	if err := Prepare(filepath.Join(file, "sub")); err == nil {
		t.Fatal("a directory under a file accepted")
	}
	if err := CheckWritable(filepath.Join(t.TempDir(), "no", "such", "dir", "h.jsonl")); err == nil {
		t.Fatal("a path in a missing directory accepted")
	}
	ok := filepath.Join(t.TempDir(), "h.jsonl")
	if err := CheckWritable(ok); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ok); !os.IsNotExist(err) {
		t.Fatalf("CheckWritable left %s behind: %v", ok, err)
	}
}
