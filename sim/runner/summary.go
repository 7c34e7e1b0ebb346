package runner

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Summary limits: how many violated invariants a summary lists (the rest
// are counted; every one is in the JSON and report.json), and how long
// any line of it may run.
const (
	summaryInvariantsMax = 20
	SummaryLineLenMax    = 160
)

// writeViolations names each violated invariant once, earliest first, on
// one line of at most SummaryLineLenMax bytes: the time of its earliest
// finding, how many findings it had, that finding's operations and
// scope, and the start of the finding's text (without the invariant's
// name again); the full messages and evidence are in the JSON.
func writeViolations(b *strings.Builder, vs []Violation) {
	for k, f := range FirstFindings(vs) {
		if k == summaryInvariantsMax {
			fmt.Fprintf(b, "... and %d more violated invariants (all of them, in full, in --json and report.json)\n", len(FirstFindings(vs))-k)
			break
		}
		b.WriteString(oneLine(f.summaryLine(), SummaryLineLenMax))
		b.WriteByte('\n')
	}
}

// summaryLine is f on one line, uncut.
func (f *FirstFinding) summaryLine() string {
	var b strings.Builder
	fmt.Fprintf(&b, "violation %s at %.3f s", f.Invariant, float64(f.AtNs)/1e9)
	var about []string
	if f.When == WhenEnd {
		about = append(about, "end checks")
	}
	if f.Findings > 1 {
		about = append(about, fmt.Sprintf("%d findings", f.Findings))
	}
	switch ops := opList(f.Evidence); {
	case ops != "" && f.Scope != "":
		about = append(about, ops+" on "+f.Scope)
	case ops != "":
		about = append(about, ops)
	case f.Scope != "":
		about = append(about, "on "+f.Scope)
	}
	if len(about) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(about, "; "))
	}
	fmt.Fprintf(&b, ": %s", f.bareText())
	return b.String()
}

// opList names the operations ("op 4", "ops 4, 9").
func opList(ev []Evidence) string {
	if len(ev) == 0 {
		return ""
	}
	ids := make([]string, len(ev))
	for i, e := range ev {
		ids[i] = fmt.Sprint(e.Op)
	}
	if len(ids) == 1 {
		return "op " + ids[0]
	}
	return "ops " + strings.Join(ids, ", ")
}

// bareText is f's text without what the line already says: a leading
// "scope S: " for its own scope and the invariant's name.
func (f *FirstFinding) bareText() string {
	t := f.Text
	if f.Scope != "" {
		t = strings.TrimPrefix(t, "scope "+f.Scope+": ")
	}
	return strings.TrimPrefix(t, string(f.Invariant)+": ")
}

// oneLine is s on one line, cut to n bytes (at a rune boundary, the cut
// marked with "…", which counts).
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
