package runner

import (
	"fmt"
	"strings"

	"github.com/felixsim/felixsim/tla"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/verdict"
	"github.com/felixsim/felixsim/sim/world"
)

// Violation is one property that failed, and how. Invariant is always a
// registered name (run.violate refuses any other).
type Violation struct {
	Invariant properties.InvariantName `json:"invariant"`
	// Message is the check's whole message: its first findings, and how
	// many more.
	Message string `json:"message"`
	// First is the violation's earliest finding (the one whose operations
	// all happened first), as its check words it; Findings counts all
	// its findings, First among them.
	First    string `json:"first"`
	Findings int    `json:"findings"`
	// Evidence are the operations First names (at most EvidenceMax), as
	// the history holds them, and Scope the scope it concerns ("" when it
	// names none).
	Evidence []Evidence `json:"evidence,omitempty"`
	Scope    string     `json:"scope,omitempty"`
	// AtNs is the simulated time First shows at, and When how that time
	// was found: WhenDuring (the run saw it then), WhenOperations (its
	// operations had all been invoked or answered by then) or WhenEnd (the
	// checks after quiesce found it, with no operation to date it).
	AtNs int64  `json:"at_ns"`
	When string `json:"when"`
	// texts are the findings the check made, in its order (at most
	// properties.FindingsKeptMax), and count how many it made in all:
	// settleFirsts picks First among texts.
	texts []string
	count int
}

// How a violation's time was found (Violation.When).
const (
	WhenDuring     = "during the run"
	WhenOperations = "by its operations"
	WhenEnd        = "at the end checks"
)

// Result is what one run reports.
type Result struct {
	// Options are the options the run used, defaults filled in.
	Options Options
	Seed    uint64
	// TraceHash is the world's hash over every executed event.
	TraceHash uint64
	// Violations are the failed checks, in check order; empty means pass.
	Violations []Violation
	// Ops tallies the workload's operations by outcome.
	Ops properties.HistoryCounts
	// Linearizable counts the per-scope linearizability verdicts.
	Linearizable LinearizableCounts
	// Retries counts writes re-sent after an unknown outcome.
	Retries int
	// OpSlots is, per workload client, how many operations it drew (its
	// slots, see faultplan.ClientOps); OpsSkipped how many of them the plan's
	// ops lines skipped.
	OpSlots    []int
	OpsSkipped int
	// SimNs is the simulated time at the end of the run.
	SimNs int64
	// Events counts the events the world executed.
	Events uint64
	// EventsByKind counts them by kind, and EventsByProcess by the process
	// (node name; "harness" for calls, faults and heal) and kind: what the
	// run's cost is made of.
	EventsByKind    world.EventKindCounts
	EventsByProcess map[string]world.EventKindCounts
	// StoreWrittenBytes is what the brokers wrote to their disks over the
	// run (every Write, store rewrites included, across restarts).
	StoreWrittenBytes uint64
	// Density is the raft work the brokers asked of etcd raft per
	// simulated second (density.go).
	Density Density
	// Plan is the fault plan drawn from the seed.
	Plan *faultplan.Plan
	// BrokerFailures counts brokers' fail-stops and failed boots.
	BrokerFailures int
	// Replaced are the brokers that lost their store (a replaced disk, or
	// a corrupt store whose disk the operator replaced) and rejoined under
	// a new identity through a membership change; a run ends with every
	// one done (else a Liveness violation).
	Replaced []Replacement
	// StreamChanges are the operator's deletes and creates of the
	// administered stream (see streamadmin.go), in the order asked, at
	// most cluster.StreamChangesMax of them.
	StreamChanges []StreamChange
	// StreamChangesUnlistedFromNs is when the first change past that cap
	// was asked (0: every change is listed); IncarnationsApart judges
	// nothing answered after it.
	StreamChangesUnlistedFromNs int64
	// KeysLost counts the keys clients put that the final state no longer
	// holds: dropped by retention (by design), or otherwise (each a
	// CommittedNeverLost violation).
	KeysLost properties.KeysLost
	// TraceValidation is the trace validation's outcome and TraceCoverage
	// the model actions the trace took (nil unless Options.ValidateTrace).
	TraceValidation *tla.TraceResult
	TraceCoverage   *tla.TraceCoverage
	// ModelStates compares the projected model states the trace visited
	// with the mirror's reachable ones (nil unless the trace was validated
	// on three brokers).
	ModelStates *tla.StateCoverage
	// History is the workload's history when Options.KeepHistory.
	History *properties.History
	// Trace is every executed event when Options.RecordTrace (cut at the
	// world's cap, then TraceTruncated is set).
	Trace          []world.TraceEvent
	TraceTruncated bool
	// Leadership is every broker's leadership terms when Options.Observe.
	Leadership          []LeaderSpan
	LeadershipTruncated bool
	// StateAt is the cluster's state at Options.UntilNs, rendered as text.
	StateAt string
	// Coverage counts the paths the run took: every fault fired and with
	// an effect (fault.<kind>.fired, fault.<kind>.effect) and the points
	// declared in package coverage.
	Coverage *coverage.Counts
	// Progress is what the workload got done that the checks judge.
	Progress Progress
	// Vacuous, when not empty, says why the run passed checks that had
	// too little to check (see VacuousReason); it is not a failure.
	Vacuous string
	// Promotions counts the promotions PromotedCaughtUp judged (nil when
	// the run emitted no abstract trace).
	Promotions *PromotionCounts
	// ChangeLiveness is what the change probe did (nil when no membership
	// change began; see changeliveness.go).
	ChangeLiveness *ChangeCounts
}

// PromotionCounts is what the promotion check saw: promotions judged,
// left unjudged (a traced log over its cap) and rejected.
type PromotionCounts struct {
	Judged, Unjudged, Failed int
}

// Decisive is the invariant that decides a run's verdict: the first
// violation of the family its verdict stands for (a safety one for a
// safety failure, even if a crash came first); "" for a pass.
func (r *Result) Decisive() properties.InvariantName {
	fam, failed := r.Worst()
	if !failed {
		return ""
	}
	for _, v := range r.Violations {
		if inv, err := properties.LookupInvariant(v.Invariant); err == nil && inv.Family == fam {
			return v.Invariant
		}
	}
	return r.Violations[0].Invariant
}

// OK reports whether no check failed.
func (r *Result) OK() bool { return len(r.Violations) == 0 }

// Crashed reports whether the simulated system panicked during the run.
func (r *Result) Crashed() bool {
	for _, v := range r.Violations {
		if v.Invariant == properties.InvariantCrash {
			return true
		}
	}
	return false
}

// Verdict is the run's verdict by the one rule (package verdict): safety
// if it violated a safety invariant, whatever came after; else liveness;
// else no verdict if the simulated system panicked; else pass. Every
// Violation names a registered invariant (newViolation); a Result built
// with any other name panics here.
func (r *Result) Verdict() verdict.Verdict {
	names := make([]properties.InvariantName, len(r.Violations))
	for i, v := range r.Violations {
		names[i] = v.Invariant
	}
	v, err := verdict.OfInvariants(names)
	if err != nil {
		panic(fmt.Sprintf("runner: result's violation refused: %v", err))
	}
	return v
}

// Worst returns the family that decides a failed run's verdict, and false
// when every check held: Safety before Liveness before Crash (Verdict).
func (r *Result) Worst() (properties.Family, bool) {
	switch r.Verdict() {
	case verdict.Safety:
		return properties.FamilySafety, true
	case verdict.Liveness:
		return properties.FamilyLiveness, true
	case verdict.NoVerdict:
		return properties.FamilyCrash, true
	}
	return 0, false
}

// ReproduceCommand is a paste-ready command that reruns this exact run:
// every option the run used, printed so that `felixsim run` parses it back
// to the same value (durations in the largest unit that divides them
// exactly; the rarely changed options only when they differ from their
// defaults).
func (r *Result) ReproduceCommand() string {
	o := r.Options.withDefaults()
	cmd := fmt.Sprintf("felixsim run --seed %d --nodes %d --streams %d --shards %d --duration %s --faults %s",
		r.Seed, o.Brokers, o.Streams, o.Shards, FormatDurationNs(o.DurationNs), o.Faults)
	if o.Clients != ClientsDefault {
		cmd += fmt.Sprintf(" --clients %d", o.Clients)
	}
	for _, d := range []struct {
		flag      string
		ns, defNs int64
	}{
		{"client-start-spread", o.ClientStartSpreadNs, 0},
		{"fault-gap", o.FaultGapMeanNs, FaultGapMeanNsDefault},
		{"liveness-budget", o.LivenessBudgetNs, LivenessBudgetNsDefault},
		{"quiesce-budget", o.QuiesceBudgetNs, QuiesceBudgetNsDefault},
		{"change-liveness-budget", o.ChangeLivenessBudgetNs, ChangeLivenessBudgetNsDefault},
	} {
		if d.ns != d.defNs {
			cmd += fmt.Sprintf(" --%s %s", d.flag, FormatDurationNs(d.ns))
		}
	}
	if names := o.defectList(); names != "" {
		cmd += " --defects " + names
	}
	if o.Steer.Name != "" && o.Steer.Name != faultplan.SteerNone {
		cmd += " --steer " + o.Steer.Name
	}
	if !o.ValidateTrace {
		cmd += " --validate-trace=false"
	}
	switch {
	case o.Plan == nil:
	case o.ArtifactDir != "":
		return "felixsim replay " + ShellQuote(o.ArtifactDir)
	case o.PlanPath != "":
		cmd += " --plan " + ShellQuote(o.PlanPath)
	default:
		cmd += " # this run replayed a plan given in code, not the seed's: save it with `felixsim run --out DIR` to replay it"
	}
	return cmd
}

// ShellQuote quotes a path for a paste-ready command line when it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./+:=@,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// FormatDurationNs prints ns in the largest of s, ms, us and ns that
// divides it exactly ("1500us", "60s"), as Go's duration flags parse it
// back to the same value.
func FormatDurationNs(ns int64) string {
	for _, u := range []struct {
		name string
		ns   int64
	}{{"s", 1_000_000_000}, {"ms", 1_000_000}, {"us", 1_000}} {
		if ns != 0 && ns%u.ns == 0 {
			return fmt.Sprintf("%d%s", ns/u.ns, u.name)
		}
	}
	return fmt.Sprintf("%dns", ns)
}

// unjudgedLinesMax caps the unjudged scopes a summary lists.
const unjudgedLinesMax = 3

// Summary is a short human report ending with the trace hash; a failing
// run names every violation, its seed and the command that reproduces it.
func (r *Result) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s seed %d: %d brokers, %d stream(s) x %d shards, %.1f simulated s, %d events\n",
		r.Verdict().Headline(), r.Seed, r.Options.Brokers, r.Options.Streams, r.Options.Shards, float64(r.SimNs)/1e9, r.Events)
	fmt.Fprintf(&b, "faults: %d drawn from %s: %s\n", len(r.Plan.Faults), r.Options.Faults, faultTally(r.Plan))
	fmt.Fprintf(&b, "ops: %d total, %d ok, %d refused, %d failed, %d unknown, %d pending; %d retries; %d broker fail-stops\n",
		r.Ops.Total, r.Ops.OK, r.Ops.Refused, r.Ops.Failed, r.Ops.Unknown, r.Ops.Pending, r.Retries, r.BrokerFailures)
	if l := r.Linearizable; l.Unknown+l.Skipped > 0 {
		fmt.Fprintf(&b, "linearizability: %d scope(s) ok, %d illegal, %d unknown, %d skipped: neither is a pass\n", l.OK, l.Illegal, l.Unknown, l.Skipped)
		for i, u := range l.Unjudged {
			if i == unjudgedLinesMax {
				fmt.Fprintf(&b, "  ... %d more (every one in --json's linearizable.unjudged)\n", len(l.Unjudged)-i)
				break
			}
			fmt.Fprintf(&b, "  %s %s: %s\n", u.Verdict, u.Scope, u.Reason)
		}
	}
	fmt.Fprintf(&b, "progress: %d acknowledged writes, %d checked reads\n", r.Progress.AckedWrites, r.Progress.CheckedReads)
	if r.Vacuous != "" {
		fmt.Fprintf(&b, "vacuous: %s\n", r.Vacuous)
	}
	for _, rp := range r.Replaced {
		how := "disk replaced"
		if rp.Corrupt {
			how = "corrupt store"
		}
		fmt.Fprintf(&b, "replaced broker %d by %d at %.3f s (%s), membership %s\n", rp.Old, rp.New, float64(rp.AtNs)/1e9, how, doneAt(rp.DoneNs))
	}
	if n := len(r.StreamChanges); n > 0 {
		done := 0
		for _, sc := range r.StreamChanges {
			if sc.DoneNs != 0 {
				done++
			}
		}
		last := r.StreamChanges[n-1]
		fmt.Fprintf(&b, "stream %s/%s: %d deletes and creates listed, %d done; the last a delete=%v at %.3f s, %s (generation %d)\n",
			Namespace, AdminStream, n, done, last.Deleted, float64(last.AtNs)/1e9, doneAt(last.DoneNs), last.Generation)
		if at := r.StreamChangesUnlistedFromNs; at != 0 {
			fmt.Fprintf(&b, "  the list stops at %d: the changes asked from %.3f s on are not listed, and %s judges no op answered after that\n",
				n, float64(at)/1e9, properties.InvariantIncarnationsApart)
		}
	}
	writeViolations(&b, r.Violations)
	if !r.OK() {
		b.WriteString("full messages and evidence: run with --json, or read report.json of --out DIR\n")
		fmt.Fprintf(&b, "reproduce: %s\n", r.ReproduceCommand())
	}
	fmt.Fprintf(&b, "trace hash %016x\n", r.TraceHash)
	return cutLines(b.String())
}

// doneAt says when a change was done, in seconds, or that it was not.
func doneAt(ns int64) string {
	if ns == 0 {
		return "not done"
	}
	return fmt.Sprintf("done at %.3f s", float64(ns)/1e9)
}

// cutLines cuts every line of a summary to SummaryLineLenMax bytes but
// the reproduce line, a command that must paste whole.
func cutLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if body := strings.TrimSuffix(l, "\n"); len(body) > SummaryLineLenMax && !strings.HasPrefix(body, "reproduce: ") {
			lines[i] = oneLine(body, SummaryLineLenMax) + "\n"
		}
	}
	return strings.Join(lines, "")
}

// faultTally counts a plan's faults by kind, in kind order ("none" if empty).
func faultTally(p *faultplan.Plan) string {
	counts := map[faultplan.FaultKind]int{}
	for _, f := range p.Faults {
		counts[f.Kind]++
	}
	var parts []string
	for _, k := range faultplan.AllFaultKinds() {
		if n := counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s x%d", k, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// StreamChange is one operator delete or create of the administered
// stream (see sim/cluster's streamadmin.go).
type StreamChange = cluster.StreamChange

// Replacement is one broker identity replaced by a new one on a new disk
// (see sim/cluster's replace.go).
type Replacement = cluster.Replacement
