package tla

import (
	"bufio"
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"
)

var long = flag.Bool("long", false, "also explore the long configs (MCFelixAtomicCommitTerm3: 1.2M states)")

// tlcRow is one row of README.md's TLC results table.
type tlcRow struct {
	config    string
	invariant string // "" for "no error"
	generated int
	distinct  int
	depth     int
}

// readTLCResults parses the table after the tlc-results marker.
func readTLCResults(t *testing.T) []tlcRow {
	t.Helper()
	f, err := os.Open("README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []tlcRow
	inTable := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "tlc-results") {
			inTable = true
			continue
		}
		if !inTable || !strings.HasPrefix(line, "| MC") {
			if inTable && len(rows) > 0 && !strings.HasPrefix(line, "|") {
				break
			}
			continue
		}
		cols := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cols {
			cols[i] = strings.TrimSpace(cols[i])
		}
		if len(cols) != 6 {
			t.Fatalf("README.md TLC row %q: %d columns, want 6", line, len(cols))
		}
		r := tlcRow{config: cols[0]}
		if v := cols[1]; v != "no error" {
			r.invariant = strings.TrimSuffix(v, " violated")
		}
		for i, dst := range []*int{&r.generated, &r.distinct, &r.depth} {
			if *dst, err = strconv.Atoi(cols[2+i]); err != nil {
				t.Fatalf("README.md TLC row %q: column %d: %v", line, 3+i, err)
			}
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatal("README.md has no TLC results table after the tlc-results marker")
	}
	return rows
}

// TestMirrorMatchesTLC: the mirror explores exactly TLC's state space for
// every config but the long ones, and finds the same violation at the same
// depth.
func TestMirrorMatchesTLC(t *testing.T) {
	rows := map[string]tlcRow{}
	for _, row := range readTLCResults(t) {
		rows[row.config] = row
	}
	for _, cfg := range Configs() {
		if cfg.Long || cfg.Spares > 0 {
			continue // a config with spares: TestReconfigureIsExercised explores it once for both
		}
		row, ok := rows[cfg.Name]
		if !ok {
			t.Fatalf("README.md has no TLC result for %s", cfg.Name)
		}
		checkRow(t, cfg, row)
	}
}

// TestMirrorMatchesTLCLong does the same for the long configs; it runs
// only with -long (go test ./tla -long -run Long), and skips otherwise.
func TestMirrorMatchesTLCLong(t *testing.T) {
	if !*long {
		t.Skip("long configs run only with -long")
	}
	rows := map[string]tlcRow{}
	for _, row := range readTLCResults(t) {
		rows[row.config] = row
	}
	for _, cfg := range Configs() {
		if !cfg.Long || cfg.Name == BrokerShapeConfig().Name {
			continue // TestReachableBoundLong checks MCBrokerShape as it builds the bound
		}
		row, ok := rows[cfg.Name]
		if !ok {
			t.Fatalf("README.md has no TLC result for %s", cfg.Name)
		}
		checkRow(t, cfg, row)
	}
}

// checkRow explores cfg and compares the result with TLC's row.
func checkRow(t *testing.T, cfg Config, row tlcRow) {
	t.Helper()
	checkExplored(t, &explorer{m: model{cfg: cfg}}, row)
}

// checkExplored runs the prepared exploration e and compares the result
// with TLC's row.
func checkExplored(t *testing.T, e *explorer, row tlcRow) {
	t.Helper()
	res, err := exploreWith(e, StatesMax)
	if err != nil {
		t.Fatal(err)
	}
	if row.invariant == "" {
		if res.Violation != nil {
			t.Fatalf("%s: TLC found no error, the mirror found %s: %s", row.config, res.Violation.Invariant, res.Violation.Message)
		}
		if res.Generated != row.generated || res.Distinct != row.distinct || res.Depth != row.depth {
			t.Fatalf("%s: mirror generated %d, distinct %d, depth %d; TLC generated %d, distinct %d, depth %d",
				row.config, res.Generated, res.Distinct, res.Depth, row.generated, row.distinct, row.depth)
		}
		return
	}
	if res.Violation == nil {
		t.Fatalf("%s: TLC found %s violated, the mirror found no violation in %d states", row.config, row.invariant, res.Distinct)
	}
	if string(res.Violation.Invariant) != row.invariant || res.Depth != row.depth || len(res.Violation.Trace) != row.depth {
		t.Fatalf("%s: mirror found %s at depth %d (trace of %d states); TLC found %s at depth %d",
			row.config, res.Violation.Invariant, res.Depth, len(res.Violation.Trace), row.invariant, row.depth)
	}
}

// TestTraceIsReadable: the counterexample names each action and shows
// the half commit in the last step.
func TestTraceIsReadable(t *testing.T) {
	cfg, err := Select("", "PartialApply")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Explore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteTrace(&b, res.Violation.Trace); err != nil {
		t.Fatal(err)
	}
	want := []string{"1: Init", "2: Timeout(b1)", "3: Vote(b2, b1)", "4: Promote(b1)", "5: Propose(b1)", "6: Persist(b1)", "7: Replicate(b1, b2)",
		"8: AdvanceCommit(b1)", "9: Apply(b1)",
		"mid[b1] = true", "shard[b1] = <<[c1 commit]>>"}
	for _, w := range want {
		if !strings.Contains(b.String(), w) {
			t.Fatalf("trace lacks %q:\n%s", w, b.String())
		}
	}
	if !strings.Contains(res.Violation.Message, "event without its state") {
		t.Fatalf("violation message %q does not say which half is missing", res.Violation.Message)
	}
}

// TestStateHasNoPadding: the fingerprint reads State's bytes, so State
// must be bytes only, with no padding the hash could read.
func TestStateHasNoPadding(t *testing.T) {
	fields := 2 + BrokersMax*(4+BrokersMax+logMax*7+2+2+logMax*7+1+keysMax*2+1+3) + CommitsMax*5
	if stateBytes != fields {
		t.Fatalf("State is %d bytes but its fields sum to %d: padding or a wider field crept in", stateBytes, fields)
	}
}

// TestConfigSelection covers the CLI's names.
func TestConfigSelection(t *testing.T) {
	cases := []struct{ name, variant, want string }{
		{"", "", "MCFelixAtomicCommit"},
		{"", "splitrecords", "MCSplitRecords"},
		{"", "PartialApply", "MCPartialApply"},
		{"MCPartialApplyFull", "", "MCPartialApplyFull"},
	}
	for _, c := range cases {
		cfg, err := Select(c.name, c.variant)
		if err != nil || cfg.Name != c.want {
			t.Fatalf("Select(%q, %q) = %s, %v; want %s", c.name, c.variant, cfg.Name, err, c.want)
		}
	}
	cfg, err := Select("MCFelixAtomicCommit", "SplitRecords")
	if err != nil || cfg.Variant != SplitRecords || cfg.MaxCommits != 2 {
		t.Fatalf("Select with both: %v, %v", cfg, err)
	}
	for _, bad := range [][2]string{{"nope", ""}, {"", "Half"}} {
		if _, err := Select(bad[0], bad[1]); err == nil {
			t.Fatalf("Select(%q, %q) accepted", bad[0], bad[1])
		}
	}
	if err := (Config{Name: "x", Variant: Atomic, Brokers: 4, MaxCommits: 1}).Validate(); err == nil {
		t.Fatal("4 brokers accepted")
	}
	if _, err := Explore(Config{Name: "zero"}); err == nil {
		t.Fatal("zero config explored")
	}
}

// TestFingerprintsDoNotCollide: exploring with whole states as keys finds
// exactly as many states as exploring by 64-bit fingerprints.
func TestFingerprintsDoNotCollide(t *testing.T) {
	for _, name := range []string{"MCFelixAtomicCommit", "MCSplitRecordsFull"} {
		cfg, err := Select(name, "")
		if err != nil {
			t.Fatal(err)
		}
		byFP, err := Explore(cfg)
		if err != nil {
			t.Fatal(err)
		}
		byState, err := exploreWith(&explorer{m: model{cfg: cfg}, exact: map[State]struct{}{}}, StatesMax)
		if err != nil {
			t.Fatal(err)
		}
		if byFP.Distinct != byState.Distinct || byFP.Generated != byState.Generated || byFP.Depth != byState.Depth {
			t.Fatalf("%s: fingerprints give %d/%d/%d, whole states %d/%d/%d (distinct/generated/depth)",
				name, byFP.Distinct, byFP.Generated, byFP.Depth, byState.Distinct, byState.Generated, byState.Depth)
		}
	}
}
