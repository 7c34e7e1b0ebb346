package runner

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/tla"
)

var printTLATable = flag.Bool("print-tla-table", false, "print the Go mirror's columns of tla/README.md's trace table as this tree gives them (make tla-trace-table)")

// tlaTableRow is one row of tla/README.md's trace table: a run (the flags
// of `felixsim run ... --trace-out F` after the seed) and the raft group
// whose trace TLC and the Go mirror judge.
type tlaTableRow struct {
	seed     uint64
	duration string
	faults   string
	defects  string
	group    uint64
}

// tlaTableRows are the table's runs: default runs, kills, partitions, a
// broker replaced twice, a membership change, and two planted defects the
// trace validator rejects.
var tlaTableRows = []tlaTableRow{
	{seed: 1, duration: "1s", group: 2},
	{seed: 3, duration: "2s", group: 4},
	{seed: 14, duration: "3s", faults: "kill", group: 4},
	{seed: 1, duration: "2s", faults: "kill,isolate,partition", group: 2},
	{seed: 5, duration: "2s", group: 5},
	{seed: 6, duration: "2s", faults: "diskreplace", group: 4},
	{seed: 1, duration: "2s", faults: "membership", group: 4},
	{seed: 1, duration: "1s", defects: "ack-before-quorum", group: 2},
	{seed: 1, duration: "1s", defects: "commit-if-at-proposal", group: 2},
}

// args is the row's felixsim run flags, as the table shows them.
func (r tlaTableRow) args() string {
	out := fmt.Sprintf("--seed %d --duration %s", r.seed, r.duration)
	if r.faults != "" {
		out += " --faults " + r.faults
	}
	if r.defects != "" {
		out += " --defects " + r.defects
	}
	return out
}

// mirrorColumns runs the row as felixsim run does and gives the table's
// first four columns: the run's flags, the group, the group trace's
// steps, and the Go mirror's verdict on it.
func (r tlaTableRow) mirrorColumns(t *testing.T) string {
	t.Helper()
	faults := r.faults
	if faults == "" {
		faults = "all" // felixsim run's default
	}
	f, err := ParseFaults(faults)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseDefects(r.defects)
	if err != nil {
		t.Fatal(err)
	}
	var dur float64
	if _, err := fmt.Sscanf(r.duration, "%fs", &dur); err != nil {
		t.Fatal(err)
	}
	rec := &modeltrace.Recorder{}
	if _, err := Run(Options{Seed: r.seed, DurationNs: int64(dur * 1e9), Faults: f, Defects: d, TraceExport: rec}); err != nil {
		t.Fatal(err)
	}
	steps := tla.GroupTrace(rec.Steps, r.group)
	res := tla.ValidateTrace(steps, BrokersDefault)
	verdict := "valid"
	if !res.Valid {
		verdict = fmt.Sprintf("%s at %d", res.Rejection.Violated(), res.Rejection.Step)
	}
	return fmt.Sprintf("| `%s` | %d | %d | %s |", r.args(), r.group, len(steps), verdict)
}

// tlaTableMarker opens the table in tla/README.md.
const tlaTableMarker = "<!-- trace-table: make tla-trace-table prints the first four columns"

// TestTLAReadmeTraceTable: the first four columns of tla/README.md's trace
// table (run, group, steps, the Go mirror's verdict) are what this tree
// gives for each row, so the table cannot go stale; the TLC column names
// the revision it was measured at. With -print-tla-table it prints the
// columns instead (make tla-trace-table).
func TestTLAReadmeTraceTable(t *testing.T) {
	var want []string
	for _, r := range tlaTableRows {
		want = append(want, r.mirrorColumns(t))
	}
	if *printTLATable {
		fmt.Println(strings.Join(want, "\n"))
		return
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "tla", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	at := strings.Index(text, tlaTableMarker)
	if at < 0 {
		t.Fatalf("tla/README.md has no line %q", tlaTableMarker)
	}
	var rows []string
	for _, l := range strings.Split(text[at:], "\n")[3:] {
		if !strings.HasPrefix(l, "| `") {
			break
		}
		rows = append(rows, l)
	}
	if len(rows) != len(want) {
		t.Fatalf("tla/README.md's trace table has %d rows, want %d (make tla-trace-table prints them)", len(rows), len(want))
	}
	for i, row := range rows {
		if !strings.HasPrefix(row, want[i]+" ") || !strings.Contains(row, " at ") {
			t.Errorf("row %d is\n  %s\nbut this tree gives\n  %s ...\nand the TLC column must name the revision it was measured at (make tla-trace-table)", i+1, row, want[i])
		}
	}
}
