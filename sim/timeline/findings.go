package timeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/runner"
)

// Finding is one violated invariant as the page lists it: its earliest
// finding (runner.FirstFindings, as the summary and report.json give
// it), how many findings it had, and the operations that show it.
type Finding struct {
	Invariant string
	// Text is the earliest finding as its check words it, and Message the
	// check's whole message (its first findings and how many more).
	Text, Message string
	// Findings counts the invariant's findings, the earliest among them.
	Findings int
	// Evidence are the earliest finding's operations (at most
	// runner.EvidenceMax), Scope its scope.
	Evidence []runner.Evidence
	Scope    string
	// Brokers names the brokers its text names as their rows are named
	// ("broker 2 (raft id 9)" for a later identity).
	Brokers []string
	// AtNs is when it shows and When how that was found (runner's).
	AtNs int64
	When string
}

// findings names each violated invariant once, earliest first, with its
// earliest finding.
func findings(vs []runner.Violation, nb numbering) []Finding {
	var out []Finding
	for _, f := range runner.FirstFindings(vs) {
		fd := Finding{Invariant: string(f.Invariant), Text: f.Text, Findings: f.Findings, Evidence: f.Evidence, Scope: f.Scope, AtNs: f.AtNs, When: f.When}
		for _, v := range vs {
			if v.Invariant == f.Invariant {
				fd.Message = v.Message
				break
			}
		}
		for _, e := range f.Evidence {
			for _, id := range e.Brokers {
				if n := nb.raftIDName(id); !slices.Contains(fd.Brokers, n) {
					fd.Brokers = append(fd.Brokers, n)
				}
			}
		}
		out = append(out, fd)
	}
	return out
}

// WhenText says when f shows, in seconds, and how that was found.
func (f *Finding) WhenText() string {
	switch f.When {
	case runner.WhenDuring:
		return "at " + secs(f.AtNs) + ", seen during the run"
	case runner.WhenOperations:
		return "at " + secs(f.AtNs) + ", when the operations it rests on had all happened"
	}
	return "at " + secs(f.AtNs) + ", the run's end: found by the end checks, it names no operation to date it"
}

// evidenceText is one evidence operation in words, times in seconds.
func evidenceText(e runner.Evidence) string {
	var b strings.Builder
	fmt.Fprintf(&b, "op %d: client %d %s on %s", e.Op, e.Client, e.Kind, e.Scope)
	if e.Key != "" {
		fmt.Fprintf(&b, " key %q", e.Key)
	}
	fmt.Fprintf(&b, ", %s", secs(e.InvokeNs))
	if e.Outcome == properties.OutcomePending.String() {
		b.WriteString(", still pending")
	} else {
		fmt.Fprintf(&b, " to %s, %s", secs(e.CompleteNs), e.Outcome)
	}
	for _, f := range []struct {
		name string
		v    uint64
	}{{"offset", e.Offset}, {"expected offset", e.Expected}, {"tail", e.Tail}, {"version", e.Version}} {
		if f.v != 0 {
			fmt.Fprintf(&b, ", %s %d", f.name, f.v)
		}
	}
	return b.String()
}

// firstLine says which finding the page shows: the earliest of how many,
// on which scope, and its text.
func (f *Finding) firstLine() string {
	var b strings.Builder
	if f.Findings > 1 {
		fmt.Fprintf(&b, "the earliest of %d findings", f.Findings)
	} else {
		b.WriteString("its one finding")
	}
	if f.Scope != "" {
		fmt.Fprintf(&b, ", on %s", f.Scope)
	}
	fmt.Fprintf(&b, ": %s", strings.TrimPrefix(f.Text, f.Invariant+": "))
	return b.String()
}
