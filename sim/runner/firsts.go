package runner

import (
	"regexp"
	"sort"

	"github.com/felixsim/felixsim/properties"
)

// A violation's first time is its earliest finding's: each check keeps
// every finding it made (properties.FindingsError; the replica checks one
// per scope), and the finding whose operations all happened first is the
// violation's First, dated by those operations. What the run saw while
// it went (in-run checks, a budget running out, a crash) is dated when it
// was seen, and its first sighting is its earliest. The summary, --json,
// report.json and the timeline page all read First and its time from
// here (FirstFindings), so they cannot disagree.

// settleFirsts gives each violation its earliest finding, its time, its
// operations and its scope (endNs dates a finding no operation dates).
// The violations stay in check order, which decides a failing run's
// deciding invariant (Result.Decisive); FirstFindings orders by time.
func settleFirsts(vs []Violation, lk historyLookup, endNs int64) {
	for i := range vs {
		settleFirst(&vs[i], lk, endNs)
	}
}

// settleFirst picks v's earliest finding among the texts its check kept.
func settleFirst(v *Violation, lk historyLookup, endNs int64) {
	texts := v.texts
	if len(texts) == 0 {
		texts = []string{v.Message}
	}
	v.Findings = max(v.count, 1)
	best, bestAt := -1, int64(0)
	var bestEv []Evidence
	if v.When == WhenDuring { // seen then: its first sighting is its earliest
		best, bestEv = 0, evidenceOf(texts[0], lk)
	} else {
		for i, t := range texts {
			ev := evidenceOf(t, lk)
			if at := evidenceEndNs(ev); len(ev) > 0 && (best < 0 || at < bestAt) {
				best, bestAt, bestEv = i, at, ev
			}
		}
		v.AtNs, v.When = bestAt, WhenOperations
		if best < 0 {
			best, v.AtNs, v.When = 0, endNs, WhenEnd
		}
	}
	v.First, v.Evidence = clip(texts[best]), bestEv
	v.Scope = scopeOf(texts[best], bestEv)
}

// evidenceEndNs is when the last operation of ev was invoked or answered:
// the moment the operations that show a finding had all happened.
func evidenceEndNs(ev []Evidence) int64 {
	var end int64
	for _, e := range ev {
		end = max(end, e.InvokeNs, e.CompleteNs)
	}
	return end
}

// scopeRef is a scope as the checks write one: tenant/namespace/stream/shard.
var scopeRef = regexp.MustCompile(`\b([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/\d+)\b`)

// scopeOf is the scope a finding's text names first, else its first
// operation's, else "".
func scopeOf(text string, ev []Evidence) string {
	if m := scopeRef.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	if len(ev) > 0 {
		return ev[0].Scope
	}
	return ""
}

// writesAtOffset lists, for a finding that names a scope and an offset
// but no operation (a replica check: "reader at broker-1 saw event "" at
// offset 5"), the writes acknowledged at that offset of that scope: the
// operations the finding rests on.
func writesAtOffset(text string, lk historyLookup) []uint64 {
	so, ok := scopeOffsetIn(text)
	if !ok {
		return nil
	}
	return lk.writesAt(so.scope, so.offset)
}

// FirstFinding is one violated invariant's earliest finding, as every
// output reports it: the summary's line, --json's and report.json's
// first_findings, the timeline page's list.
type FirstFinding struct {
	Invariant properties.InvariantName `json:"invariant"`
	// AtNs and When say when it shows (Violation's).
	AtNs int64  `json:"at_ns"`
	When string `json:"when"`
	// Text is the finding as its check words it; Scope and Evidence its
	// scope and operations.
	Text     string     `json:"text"`
	Scope    string     `json:"scope,omitempty"`
	Evidence []Evidence `json:"evidence,omitempty"`
	// Findings counts every finding of the invariant, in all its
	// violations; Violations counts those violations.
	Findings   int `json:"findings"`
	Violations int `json:"violations"`
}

// FirstFindings names each violated invariant once, with its earliest
// finding, earliest first (check order among equal times).
func FirstFindings(vs []Violation) []FirstFinding {
	var out []FirstFinding
	index := map[properties.InvariantName]int{}
	for _, v := range vs {
		i, seen := index[v.Invariant]
		if !seen {
			i, index[v.Invariant] = len(out), len(out)
			out = append(out, FirstFinding{Invariant: v.Invariant, AtNs: v.AtNs, When: v.When, Text: v.First, Scope: v.Scope, Evidence: v.Evidence})
		} else if v.AtNs < out[i].AtNs {
			f := &out[i]
			f.AtNs, f.When, f.Text, f.Scope, f.Evidence = v.AtNs, v.When, v.First, v.Scope, v.Evidence
		}
		out[i].Findings += max(v.Findings, 1)
		out[i].Violations++
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].AtNs < out[b].AtNs })
	return out
}

// addFindings keeps err's findings beside v's own (up to
// properties.FindingsKeptMax) and counts them.
func (v *Violation) addFindings(err error) {
	texts, n := properties.FindingsOf(err)
	v.count += n
	if room := properties.FindingsKeptMax - len(v.texts); room > 0 {
		v.texts = append(v.texts, texts[:min(len(texts), room)]...)
	}
}
