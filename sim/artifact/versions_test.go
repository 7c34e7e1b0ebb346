package artifact

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim/verdict"
)

// versionsDir holds a checked-in example of every version of every file
// format felixsim reads besides the model trace and the sweep report
// (sim/sweep's testdata holds those): plan v1 is sim/testdata/plan_v1.txt
// (v1's printer) without its comment lines; plan v3, history v1 and the
// event trace v1 were written by felixsim at 9e2c8bb (`felixsim run --seed
// 3 --duration 100ms --defects commit-as-two-records --faults none --out`;
// plan v2 is that plan without its meta lines); history v2 and
// report.json v2 by this tree's run of the same command.
const versionsDir = "testdata/versions"

// TestReadsEveryVersion: each example reads, and says its version on its
// first line; what it holds is checked against facts read off the files
// with grep (seed, nodes, counts), not from the readers.
func TestReadsEveryVersion(t *testing.T) {
	for _, c := range []struct {
		file, firstLine string
	}{
		{"plan-v1.txt", "felixsim-plan v1"}, {"plan-v2.txt", "felixsim-plan v2"}, {"plan-v3.txt", "felixsim-plan v3"},
		{"history-v1.jsonl", "felixsim-history v1"}, {"history-v2.jsonl", "felixsim-history v2"},
		{"events-v1.ndjson", `{"format":"felixsim-trace v1",`}, {"report-v2.json", `{"format": "felixsim-report v2",`},
	} {
		if got := firstLine(t, c.file); !strings.HasPrefix(got, c.firstLine) {
			t.Errorf("%s: line 1 is %q, want it to open %q", c.file, got, c.firstLine)
		}
	}
	for file, want := range map[string]struct {
		seed   uint64
		nodes  int
		faults int
	}{"plan-v1.txt": {16, 4, 72}, "plan-v2.txt": {3, 9, 0}, "plan-v3.txt": {3, 9, 0}} {
		p, m, err := ReadPlan(filepath.Join(versionsDir, file))
		if err != nil || p.Seed != want.seed || p.Nodes != want.nodes || len(p.Faults) != want.faults {
			t.Errorf("%s: %v; plan %+v", file, err, p)
			continue
		}
		if file == "plan-v3.txt" && (m.Format != 3 || !m.HasTraceHash || m.Brokers != 3 || m.Defects != "commit-as-two-records") {
			t.Errorf("%s: meta %+v", file, m)
		}
	}
	for _, file := range []string{"history-v1.jsonl", "history-v2.jsonl"} {
		h, err := ReadHistory(filepath.Join(versionsDir, file))
		if err != nil || len(h.Ops) != 28 {
			t.Errorf("%s: %v (%d operations, want 28)", file, err, len(h.Ops))
		}
	}
	tr, err := ReadTrace(filepath.Join(versionsDir, "events-v1.ndjson"))
	if err != nil || len(tr.Events) != 1777 || tr.Truncated {
		t.Errorf("events-v1.ndjson: %v", err)
	}
	r, err := ReadReport(filepath.Join(versionsDir, "report-v2.json"))
	if err != nil || r.Seed != 3 || r.Verdict != verdict.Safety || r.ExitCode != 1 || len(r.FirstFindings) == 0 {
		t.Errorf("report-v2.json: %v, %+v", err, r)
	}
}

// TestReportReaderRefuses: a report without its format on line 1, of
// another version, with an unknown field or a verdict its exit code
// contradicts is refused.
func TestReportReaderRefuses(t *testing.T) {
	good, err := os.ReadFile(filepath.Join(versionsDir, "report-v2.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseReport(good); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]string{
		"v1":            strings.Replace(string(good), "felixsim-report v2", "felixsim-report v1", 1),
		"format later":  strings.Replace(string(good), `{"format": "felixsim-report v2",`, "{\n\"format\": \"felixsim-report v2\",", 1),
		"unknown field": strings.Replace(string(good), `"seed": 3,`, `"seed": 3, "extra": 1,`, 1),
		"verdict lies":  strings.Replace(string(good), `"exit_code": 1,`, `"exit_code": 4,`, 1),
		"bad verdict":   strings.Replace(string(good), `"verdict": "safety",`, `"verdict": "FAIL",`, 1),
	} {
		if bad == string(good) {
			t.Fatalf("%s: the edit found nothing to change", name)
		}
		if _, err := ParseReport([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestReplayFindsAnOlderEventsFile: an artifact written before the
// event trace was renamed keeps it as trace.ndjson; replay reads it.
func TestReplayFindsAnOlderEventsFile(t *testing.T) {
	dir := t.TempDir()
	if got := savedEvents(dir); got != "" {
		t.Fatalf("an empty directory's event trace: %q", got)
	}
	os.WriteFile(filepath.Join(dir, EventsFileV1), nil, 0o644)
	if got := savedEvents(dir); got != filepath.Join(dir, EventsFileV1) {
		t.Fatalf("older artifact: %q", got)
	}
	os.WriteFile(filepath.Join(dir, EventsFile), nil, 0o644)
	if got := savedEvents(dir); got != filepath.Join(dir, EventsFile) {
		t.Fatalf("with both: %q", got)
	}
}

func firstLine(t *testing.T, file string) string {
	f, err := os.Open(filepath.Join(versionsDir, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	return sc.Text()
}

// TestPlanFileLinesRanged: a plan file's param and meta lines get the
// same range as their flags (or the workload's own), refused naming the
// line: --clients 2..16, --client-start-spread and the budgets at most
// 10000 h, the topology within --nodes, --streams and --shards.
func TestPlanFileLinesRanged(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(versionsDir, "plan-v3.txt"))
	if err != nil {
		t.Fatal(err)
	}
	good := string(b)
	lineOf := func(text, prefix string) int {
		for i, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, prefix) {
				return i + 1
			}
		}
		t.Fatalf("no %q line", prefix)
		return 0
	}
	for _, c := range []struct{ old, new, why string }{
		{"param clients 4", "param clients 17", "param clients 17 refused: want 2..16, as --clients"},
		{"param start_spread_ns 0", "param start_spread_ns 36000000000000001", "want 0..36000000000000000, as --client-start-spread"},
		{"param retry_unknown_pct 50", "param retry_unknown_pct 101", "retry chance 101% refused"},
		{"param arrivals 0", "param bogus 0", `workload param "bogus" refused`},
		{"# brokers: 3", "# brokers: 99", "brokers \"99\" refused: want a positive count up to"},
		{"# shards: 4", "# shards: 65", "shards \"65\" refused"},
		{"# quiesce-budget-ns: 20000000000", "# quiesce-budget-ns: 36000000000000001", "quiesce-budget-ns \"36000000000000001\" refused"},
	} {
		text := strings.Replace(good, c.old, c.new, 1)
		if text == good {
			t.Fatalf("%q not in the plan", c.old)
		}
		_, _, err := ParsePlanFile(text)
		want := fmt.Sprintf("plan line %d: ", lineOf(text, c.new))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: %v; want %q and %q", c.new, err, want, c.why)
		}
	}
}
