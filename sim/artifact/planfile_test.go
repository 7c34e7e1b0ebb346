package artifact

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/runner"
	"pgregory.net/rapid"
)

// TestV3SampleParses: the fuzz target's v3 sample is a plan file this
// reader accepts with every key of its run description, so the
// truncation property is exercised on it.
func TestV3SampleParses(t *testing.T) {
	p, m, err := ParsePlanFile(v3Sample)
	if err != nil {
		t.Fatal(err)
	}
	want := Meta{Format: 3, Revision: "0123abc", TraceHash: 0x44cb1e4a7d6b7231, HasTraceHash: true, Brokers: 3, Streams: 1, Shards: 4,
		Defects: "ack-before-quorum", Faults: "all", FaultGapNs: 2e9, LivenessBudgetNs: 30e9, QuiesceBudgetNs: 20e9, ChangeLivenessBudgetNs: 1e9, ValidateTrace: true}
	if m != want || len(p.Faults) != 2 || p.Seed != 3 {
		t.Fatalf("meta %+v\nwant %+v; plan %v", m, want, p)
	}
	assertNoPrefixAccepted(t, v3Sample)
}

// savedPlan runs opts with recording on and returns its saved plan file's
// text and the result.
func savedPlan(t *testing.T, opts runner.Options) (string, *runner.Result) {
	t.Helper()
	dir, res := save(t, opts)
	text, err := os.ReadFile(filepath.Join(dir, PlanFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(text), res
}

// TestPlanFileRefusesEveryCut: a saved plan file (5 brokers, a planted
// defect, non-default budgets) cut short anywhere, missing any one line,
// or with a line added is refused; the refusal of a missing meta line
// names its key, and of a missing fault line the end line.
func TestPlanFileRefusesEveryCut(t *testing.T) {
	text, _ := savedPlan(t, runner.Options{Seed: 4, Brokers: 5, DurationNs: 3e9, FaultGapMeanNs: 5e8, LivenessBudgetNs: 7e9,
		ValidateTrace: true, Defects: node.Defects{AckBeforeQuorum: true}})
	if _, _, err := ParsePlanFile(text); err != nil {
		t.Fatalf("the saved plan is refused: %v\n%s", err, text)
	}
	assertNoPrefixAccepted(t, text)
	lines := strings.SplitAfter(text, "\n")
	for i, line := range lines {
		if line == "" {
			continue
		}
		cut := strings.Join(lines[:i], "") + strings.Join(lines[i+1:], "")
		_, _, err := ParsePlanFile(cut)
		if err == nil {
			t.Errorf("line %d %q deleted: accepted", i+1, line)
			continue
		}
		if key, _, ok := strings.Cut(strings.TrimPrefix(line, "# "), ": "); ok && strings.HasPrefix(line, "# ") && key != metaEnd && key != metaTraceHash &&
			!strings.Contains(err.Error(), key) && !strings.Contains(err.Error(), "end line") {
			t.Errorf("line %d %q deleted: the refusal %q names neither the key nor the end line", i+1, line, err)
		}
		if strings.HasPrefix(line, "fault ") && !strings.Contains(err.Error(), "a fault line is missing") {
			t.Errorf("fault line %d deleted: refusal %q", i+1, err)
		}
	}
	added := strings.Replace(text, "\nseed ", "\n# a note\nseed ", 1)
	if _, _, err := ParsePlanFile(added); err == nil || !strings.Contains(err.Error(), "a line is missing or added") {
		t.Errorf("a comment line added: %v", err)
	}
}

// TestRunDescriptionRecordsEveryOutcomeSetting: every setting that
// decides a run's outcome (runner.Options.Settings) of a saved run is
// read back from its plan file alone, equal to the run's; a run of those
// options gives the saved trace hash and verdict.
func TestRunDescriptionRecordsEveryOutcomeSetting(t *testing.T) {
	opts := runner.Options{Seed: 9, Brokers: 4, Streams: 2, Shards: 2, DurationNs: 2e9, FaultGapMeanNs: 3e8, Clients: 3,
		ClientStartSpreadNs: 5e8, LivenessBudgetNs: 9e9, QuiesceBudgetNs: 4e9, ChangeLivenessBudgetNs: 3e9, ValidateTrace: false,
		Faults: mustFaults(t, "kill,partition,clockjump"), Defects: node.Defects{StateReadWithoutReadIndex: true}}
	text, res := savedPlan(t, opts)
	path := filepath.Join(t.TempDir(), "plan.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, meta, err := LoadRun(path, CommandDefaults(), NoFlags)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := settingsText(loaded), settingsText(res.Options); got != want {
		t.Fatalf("settings read back:\n%s\nwant (the run's):\n%s", got, want)
	}
	again, err := runner.Run(loaded)
	if err != nil {
		t.Fatal(err)
	}
	if err := meta.CheckReproduced(again.TraceHash); err != nil || len(again.Violations) != len(res.Violations) {
		t.Fatalf("re-run: %v; %d violations, saved %d", err, len(again.Violations), len(res.Violations))
	}
}

func mustFaults(t *testing.T, s string) runner.FaultSet {
	t.Helper()
	f, err := runner.ParseFaults(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func settingsText(o runner.Options) string {
	var b bytes.Buffer
	for _, s := range o.Settings() {
		b.WriteString(s.Flag + "=" + s.Value + "\n")
	}
	return b.String()
}

// TestSaveLoadProperty (rapid): for random run options, the plan file a
// run saves loads back to the same settings, and a run of the loaded
// options reproduces the saved trace hash.
func TestSaveLoadProperty(t *testing.T) {
	defects := strings.Split(runner.DefectNames(), ",")
	kinds := []string{"all", "none", "all,operator", "kill,pause", "partition,loss,clockjump", "crashat,fsyncerr"}
	rapid.Check(t, func(rt *rapid.T) {
		d := rapid.SliceOfNDistinct(rapid.SampledFrom(defects), 0, 2, rapid.ID[string]).Draw(rt, "defects")
		def, err := runner.ParseDefects(strings.Join(d, ","))
		if err != nil {
			rt.Fatal(err)
		}
		opts := runner.Options{
			Seed: rapid.Uint64Range(1, 1<<40).Draw(rt, "seed"), Brokers: rapid.IntRange(1, 5).Draw(rt, "brokers"),
			Streams: rapid.IntRange(1, 2).Draw(rt, "streams"), Shards: uint32(rapid.IntRange(1, 3).Draw(rt, "shards")),
			DurationNs: rapid.Int64Range(1e8, 6e8).Draw(rt, "durationNs"), FaultGapMeanNs: rapid.Int64Range(5e7, 3e9).Draw(rt, "gapNs"),
			Clients: rapid.IntRange(2, 6).Draw(rt, "clients"), ClientStartSpreadNs: rapid.Int64Range(0, 2e8).Draw(rt, "spreadNs"),
			LivenessBudgetNs: rapid.Int64Range(1e8, 4e10).Draw(rt, "livenessNs"), QuiesceBudgetNs: rapid.Int64Range(1e8, 3e10).Draw(rt, "quiesceNs"),
			ChangeLivenessBudgetNs: rapid.Int64Range(1e8, 3e9).Draw(rt, "changeNs"),
			ValidateTrace:          rapid.Bool().Draw(rt, "validate"), Defects: def,
		}
		if opts.Faults, err = runner.ParseFaults(rapid.SampledFrom(kinds).Draw(rt, "faults")); err != nil {
			rt.Fatal(err)
		}
		res, err := runner.Run(opts)
		if err != nil {
			rt.Fatal(err)
		}
		var b bytes.Buffer
		if err := WritePlan(&b, res.Plan, metaOf(res, "rev")); err != nil {
			rt.Fatal(err)
		}
		p, m, err := ParsePlanFile(b.String())
		if err != nil {
			rt.Fatalf("%v\n%s", err, b.String())
		}
		loaded, err := OptionsFor(p, m, CommandDefaults(), NoFlags)
		if err != nil {
			rt.Fatal(err)
		}
		if got, want := settingsText(loaded), settingsText(res.Options); got != want {
			rt.Fatalf("settings read back:\n%s\nwant:\n%s", got, want)
		}
		again, err := runner.Run(loaded)
		if err != nil {
			rt.Fatal(err)
		}
		if err := m.CheckReproduced(again.TraceHash); err != nil {
			rt.Fatal(err)
		}
	})
}
