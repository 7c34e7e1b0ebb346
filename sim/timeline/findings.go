package timeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/runner"
)

// Finding is one violated invariant: its first message, how many
// violations it had, and the operations that show it.
type Finding struct {
	Invariant string
	Message   string
	// Violations counts the run's violations of the invariant.
	Violations int
	// Evidence are the operations its violations name, first named
	// first, without repeats, at most FindingOpsMax.
	Evidence []runner.Evidence
	// Brokers names the brokers its messages name as their rows are
	// named ("broker 2 (raft id 9)" for a later identity).
	Brokers []string
	// AtNs is when it shows: the earliest invocation among Evidence; -1
	// when its check names no operation (a replica or trace check), so
	// the run holds no time for it.
	AtNs int64
}

// FindingOpsMax caps the operations a finding lists.
const FindingOpsMax = 6

// findings names each violated invariant once, in first-failure order.
func findings(vs []runner.Violation, h *properties.History, nb numbering) []Finding {
	var out []Finding
	index := map[properties.InvariantName]int{}
	for _, v := range vs {
		i, ok := index[v.Invariant]
		if !ok {
			i = len(out)
			index[v.Invariant] = i
			out = append(out, Finding{Invariant: string(v.Invariant), Message: v.Message, AtNs: -1})
		}
		f := &out[i]
		f.Violations++
		for _, e := range v.Evidence {
			if len(f.Evidence) < FindingOpsMax && !hasOp(f.Evidence, e.Op) {
				f.Evidence = append(f.Evidence, e)
				if f.AtNs < 0 || e.InvokeNs < f.AtNs {
					f.AtNs = e.InvokeNs
				}
			}
			for _, id := range e.Brokers {
				if n := nb.raftIDName(id); !slices.Contains(f.Brokers, n) {
					f.Brokers = append(f.Brokers, n)
				}
			}
		}
	}
	return out
}

func hasOp(es []runner.Evidence, op uint64) bool {
	for _, e := range es {
		if e.Op == op {
			return true
		}
	}
	return false
}

// When says when f shows, in seconds, or that the run holds no time for
// it.
func (f *Finding) When() string {
	if f.AtNs < 0 {
		return "time not known: its check names no operation"
	}
	return "at " + secs(f.AtNs)
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
