package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/world"
)

var perfWork = flag.Bool("perf-work", false, "print docs/performance.md's table of the default run's work per simulated second (make perf-work)")

// perfDocPath is the performance document the tables checked here are in.
const perfDocPath = "../../docs/performance.md"

// perfWorkSeeds are the default runs the work table describes.
var perfWorkSeeds = []uint64{1, 2}

// TestPerfWorkTable prints the work table with -perf-work (make
// perf-work), and otherwise requires docs/performance.md to hold it as
// this tree computes it: the figures are a function of the tree (the
// runs are deterministic), so the table cannot go stale unnoticed.
func TestPerfWorkTable(t *testing.T) {
	if testing.Short() && !*perfWork {
		t.Skip("two 60 s runs")
	}
	table := perfWorkTable(t)
	if *perfWork {
		fmt.Print(table)
		return
	}
	doc, err := os.ReadFile(perfDocPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "<!-- table: checked: make perf-work -->\n"+table) {
		t.Fatalf("docs/performance.md does not hold the work table this tree prints; `make perf-work` prints it:\n%s", table)
	}
}

// perfWorkTable is the default run's work per simulated second, as
// `felixsim run --seed S` does it (trace validation apart: it changes
// nothing the table counts), one column per seed of perfWorkSeeds.
func perfWorkTable(t *testing.T) string {
	var res []*runner.Result
	for _, s := range perfWorkSeeds {
		o := runner.Options{Seed: s}
		o.Faults, _ = runner.ParseFaults("all")
		r, err := runner.Run(o)
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, r)
	}
	var b strings.Builder
	b.WriteString("| default run (`felixsim run --seed S`), per simulated second |")
	for _, s := range perfWorkSeeds {
		fmt.Fprintf(&b, " seed %d |", s)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(res)) + "\n")
	row := func(what string, f func(r *runner.Result) string) {
		b.WriteString("| " + what + " |")
		for _, r := range res {
			b.WriteString(" " + f(r) + " |")
		}
		b.WriteString("\n")
	}
	per := func(r *runner.Result, n uint64) string { return fmt.Sprintf("%.1f", float64(n)/(float64(r.SimNs)/1e9)) }
	row("simulated seconds, heal and quiesce included (`sim_seconds`)", func(r *runner.Result) string { return fmt.Sprintf("%.2f", r.Density.SimSeconds) })
	row("raft groups a broker hosted (`raft_groups`)", func(r *runner.Result) string { return fmt.Sprint(r.Density.RaftGroups) })
	row("raft ticks per broker (`ticks_per_sim_second`)", func(r *runner.Result) string { return fmt.Sprintf("%.1f", r.Density.TicksPerSimSecond) })
	row("proposals raft accepted (`proposals_per_sim_second`)", func(r *runner.Result) string { return fmt.Sprintf("%.1f", r.Density.ProposalsPerSimSecond) })
	row("proposal bytes, mean and max", func(r *runner.Result) string {
		return fmt.Sprintf("%.1f, %d", r.Density.ProposalBytesMean, r.Density.ProposalBytesMax)
	})
	row("client operations", func(r *runner.Result) string { return per(r, uint64(r.Ops.Total)) })
	row("events", func(r *runner.Result) string { return per(r, r.Events) })
	for _, g := range []string{"broker", "client", "relay", "liveness-probe"} {
		g := g
		row(g+" deliveries and timers (the range over its processes)", func(r *runner.Result) string { return processRange(r, g) })
	}
	row("store kB written, all brokers", func(r *runner.Result) string { return per(r, r.StoreWrittenBytes/1000) })
	return b.String()
}

// processRange is, over the processes whose name starts with prefix, the
// range of deliveries and of timers per simulated second: "400-685 / 355-492".
func processRange(r *runner.Result, prefix string) string {
	var dl, tm []float64
	var names []string
	for name := range r.EventsByProcess {
		names = append(names, name)
	}
	sort.Strings(names)
	secs := float64(r.SimNs) / 1e9
	for _, name := range names {
		if strings.HasPrefix(name, prefix) {
			c := r.EventsByProcess[name]
			dl, tm = append(dl, float64(c[world.EvDeliver])/secs), append(tm, float64(c[world.EvTimer])/secs)
		}
	}
	if len(dl) == 0 {
		return "-"
	}
	return span(dl) + " / " + span(tm)
}

// span is "lo-hi" of xs to one decimal, or one value when they agree.
func span(xs []float64) string {
	sort.Float64s(xs)
	lo, hi := fmt.Sprintf("%.1f", xs[0]), fmt.Sprintf("%.1f", xs[len(xs)-1])
	if lo == hi {
		return lo
	}
	return lo + "-" + hi
}

// revRef is a revision as the document names one.
var revRef = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)

// TestPerformanceDocTables: docs/performance.md's every table says, in a
// comment line right above it, the command that prints it; a table
// marked checked is compared with what its command prints today
// (TestPerfWorkTable), and every row of any other table names the
// revision it was measured at (a commit of this repository, when git can
// tell). Outside tables and code blocks the document compares no
// revisions by name.
func TestPerformanceDocTables(t *testing.T) {
	doc, err := os.ReadFile(perfDocPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(doc), "\n")
	known := map[string]bool{}
	inCode, inTable, checked := false, false, false
	tables := 0
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "```"):
			inCode = !inCode
			continue
		case inCode:
			continue
		case !strings.HasPrefix(l, "|"):
			inTable = false
			for _, rev := range revRef.FindAllString(stripCode(l), -1) {
				if isRevision(t, rev, known) {
					t.Errorf("docs/performance.md:%d names revision %s outside a table row: %s", i+1, rev, l)
				}
			}
			continue
		}
		if !inTable {
			inTable, tables = true, tables+1
			marker := ""
			if i > 0 {
				marker = lines[i-1]
			}
			if !strings.HasPrefix(marker, "<!-- table: ") || !strings.HasSuffix(marker, " -->") {
				t.Errorf("docs/performance.md:%d: a table without the line above it naming its command (<!-- table: COMMAND -->)", i+1)
			}
			checked = strings.HasPrefix(marker, "<!-- table: checked: ")
			continue // the header row
		}
		if checked || regexp.MustCompile(`^\|[-| ]+\|$`).MatchString(l) {
			continue
		}
		revs := revRef.FindAllString(l, -1)
		named := false
		for _, rev := range revs {
			named = named || isRevision(t, rev, known)
		}
		if !named {
			t.Errorf("docs/performance.md:%d: a row that names no revision it was measured at: %.100s", i+1, l)
		}
	}
	if tables < 10 {
		t.Fatalf("docs/performance.md: %d tables read", tables)
	}
}

// isRevision reports whether s (7 to 40 hex digits) is a commit of this
// repository; without its history at hand (a source tarball, a shallow
// clone), any such s is taken for one.
func isRevision(t *testing.T, s string, known map[string]bool) bool {
	return gitMissing() || isCommit(t, s, known)
}

// stripCode drops `code` spans (commands may name OLD=rev).
func stripCode(l string) string { return regexp.MustCompile("`[^`]*`").ReplaceAllString(l, "") }

// isCommit reports whether rev is a commit of this repository.
func isCommit(t *testing.T, rev string, known map[string]bool) bool {
	if ok, seen := known[rev]; seen {
		return ok
	}
	out, _ := exec.Command("git", "cat-file", "-t", rev).Output()
	ok := strings.TrimSpace(string(out)) == "commit"
	known[rev] = ok
	return ok
}

// gitMissing reports whether git or the repository's history is not at
// hand (a source tarball, a shallow clone).
var gitMissing = sync.OnceValue(func() bool {
	out, err := exec.Command("git", "rev-parse", "--is-shallow-repository").Output()
	return err != nil || strings.TrimSpace(string(out)) != "false"
})
