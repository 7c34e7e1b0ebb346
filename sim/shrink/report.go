package shrink

import (
	"fmt"
	"io"
	"strings"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/sweep"
)

// ListedOpsMax caps the operations the listing prints one per line; the
// rest are counted.
const ListedOpsMax = 200

// Verified reports whether the shrunk plan's re-run violated the
// invariant, as its candidate run did.
func (r *Result) Verified() bool { return r.VerifiedRun != nil && r.VerifyError == "" }

// Fewer is how many times fewer faults plus operations the shrunk run has.
func (r *Result) Fewer() float64 {
	return float64(r.Original.Total()) / float64(max(r.Shrunk.Total(), 1))
}

// WriteListing prints the shrink for a reader: sizes before and after,
// the remaining faults, the remaining operations as the re-run invoked
// them, and the re-run's verdict on the invariant.
func (r *Result) WriteListing(w io.Writer) {
	fmt.Fprintf(w, "shrunk to violate %s: %d candidates in %.1f s, %d round(s)\n", r.Invariant, r.Candidates, r.Wall.Seconds(), r.Rounds)
	if r.Stopped != "" {
		fmt.Fprintf(w, "the search stopped early: %s (the plan is the smallest found, maybe not minimal)\n", r.Stopped)
	}
	fmt.Fprintf(w, "  before: %s\n  after:  %s  (%.0fx fewer faults plus operations)\n", sizeText(r.Original), sizeText(r.Shrunk), r.Fewer())
	var phases []string
	for _, ph := range r.Phases {
		if ph.Candidates > 0 {
			phases = append(phases, fmt.Sprintf("%s %d, %.1f s, %d", ph.Name, ph.Candidates, ph.Wall.Seconds(), ph.After.Total()))
		}
	}
	fmt.Fprintf(w, "phases (candidate runs, wall time, faults plus operations after): %s\n", strings.Join(phases, "; "))
	fmt.Fprintf(w, "faults (%d):\n", len(r.Plan.Faults))
	for _, f := range r.Plan.Faults {
		fmt.Fprintf(w, "  at %s  %s\n", secondsText(f.AtNs), strings.TrimPrefix(f.String(), fmt.Sprintf("at_ns=%d kind=", f.AtNs)))
	}
	if r.VerifiedRun != nil && r.VerifiedRun.History != nil {
		writeOps(w, r.Plan, r.VerifiedRun.History, len(r.VerifiedRun.OpSlots))
	}
	if r.Verified() {
		fmt.Fprintf(w, "verified: a fresh run of the shrunk plan violates %s (trace hash %016x)\n", r.Invariant, r.VerifiedRun.TraceHash)
		for _, v := range r.VerifiedRun.Violations {
			if v.Invariant == r.Invariant {
				fmt.Fprintf(w, "  %s: %s\n", v.Invariant, sweep.FirstLine(v.Message))
				break
			}
		}
	} else {
		fmt.Fprintf(w, "NOT VERIFIED: %s\n", r.VerifyError)
	}
}

func sizeText(s Size) string {
	return fmt.Sprintf("%d faults + %d operations = %d, over %s of faults and workload", s.Faults, s.Ops, s.Total(), secondsText(s.DurationNs))
}

func secondsText(ns int64) string { return fmt.Sprintf("%.3f s", float64(ns)/1e9) }

// writeOps lists the history's operations: each drawn one with its
// client and slot (the plan's ops lines number them), re-sent writes and
// group acks marked as what they follow from, and the runner's own
// operations (clients past the workload's, the group drain) as such.
func writeOps(w io.Writer, p *faultplan.Plan, h *properties.History, clients int) {
	fmt.Fprintf(w, "operations (%d, as the re-run invoked them):\n", len(h.Ops))
	slots := historySlots(h, p, clients)
	for i, op := range h.Ops {
		origin := ""
		switch {
		case op.RetryOf != 0:
			origin = fmt.Sprintf("re-send of op %d", op.RetryOf)
		case op.Client >= clients:
			origin = "runner (group drain)"
		case op.Kind == properties.HistoryGroupAck:
			origin = "ack of a fetch"
		default:
			origin = fmt.Sprintf("slot %d", slots[i])
		}
		if i >= ListedOpsMax {
			fmt.Fprintf(w, "  … and %d more\n", len(h.Ops)-ListedOpsMax)
			return
		}
		fmt.Fprintf(w, "  op %d  client %d %s  at %s: %s\n", op.ID, op.Client, origin, secondsText(op.InvokeNs), opText(&op))
	}
}

// opText says what an operation asked for and how it ended.
func opText(op *properties.HistoryOp) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", op.Kind, op.Scope)
	switch {
	case op.Kind == properties.HistoryStateGet:
		fmt.Fprintf(&b, " key %s", op.Key)
	case op.Kind == properties.HistorySubscribe:
		fmt.Fprintf(&b, " from %d", op.FromOffset)
	case op.Kind == properties.HistoryGroupAck:
		fmt.Fprintf(&b, " offset %d", op.AckOffset)
	case op.Kind.IsWrite() && op.Record != nil:
		fmt.Fprintf(&b, " entity %s", op.EntityKey)
		if op.Record.Conditional {
			fmt.Fprintf(&b, " expecting %d", op.Record.ExpectedOffset)
		}
	}
	fmt.Fprintf(&b, " -> %s", op.Outcome)
	switch {
	case op.Outcome == properties.OutcomeOK && op.Kind.IsWrite():
		fmt.Fprintf(&b, " at %d", op.Offset)
	case op.Outcome == properties.OutcomeRefused:
		fmt.Fprintf(&b, " (tail %d)", op.Tail)
	case op.Outcome == properties.OutcomeOK && op.Kind == properties.HistoryStateGet:
		if op.Found {
			fmt.Fprintf(&b, " version %d", op.Version)
		} else {
			b.WriteString(" not found")
		}
	case op.Outcome == properties.OutcomeOK && len(op.Entries) > 0:
		fmt.Fprintf(&b, " %d entries", len(op.Entries))
	case op.Error != "":
		fmt.Fprintf(&b, " (%s)", sweep.FirstLine(op.Error))
	}
	return b.String()
}
