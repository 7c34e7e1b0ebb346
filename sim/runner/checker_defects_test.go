package runner

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/properties"
)

// checkerDefectCase is a planted bug aimed at one of the checks of the
// stored raft logs, the routing oracle or the in-run replica checks, with
// the invariant that must name it and the seed budget that must catch it.
type checkerDefectCase struct {
	defect    string
	invariant properties.InvariantName
	faults    string
	gapNs     int64
	seedsMax  uint64
}

// checkerDefectCases: each new check's planted bug. The budgets are the
// largest seeds-to-detection measured over seeds 1..60 (docs/performance.md,
// TestDetectionSweep; keep-stale-suffix needed 16 over seeds 1..200) with
// some slack.
var checkerDefectCases = []checkerDefectCase{
	// The event is applied in one round and its state in the next: the
	// in-run check at apply sees it at the first commit with state.
	// (Trace validation rejects it too, at the first state read served
	// between the two: TestTraceValidationRejectsDefects.)
	{defect: "partial-apply", invariant: properties.InvariantNoPartialCommit, faults: "none", seedsMax: 1},
	// A killed broker loses what was never synced: its store reads back
	// a commit index (or term) below what raft was told is durable.
	{defect: "no-fsync", invariant: properties.InvariantHardStateMonotonic, faults: "kill", gapNs: 1e9, seedsMax: 4},
	// A restart within a term reads back no vote.
	{defect: "vote-not-persisted", invariant: properties.InvariantHardStateMonotonic, faults: "kill", gapNs: 1e9, seedsMax: 4},
	// A follower overwritten by a shorter conflicting append keeps the
	// older entries behind it: its stored terms fall. (Trace validation
	// rejects the Persist that stores them too: TestTraceValidationRejectsDefects.)
	{defect: "keep-stale-suffix", invariant: properties.InvariantRaftLogTermsMonotonic, faults: "partition,oneway,isolate,healnet,kill", gapNs: 3e8, seedsMax: 20},
	// The client hashes with FNV-1: records land on the wrong shard.
	{defect: "wrong-route-hash", invariant: properties.InvariantRoutedToOwningShard, faults: "none", seedsMax: 1},
	// A leader that steps down answers its pending writes NotLeader: the
	// brokers' trace shows it proposed the request it says it did not.
	{defect: "not-leader-after-propose", invariant: properties.InvariantAnswersHonest, faults: "all", gapNs: 6e8, seedsMax: 5},
	// The client library reports a timed-out write failed; the workload
	// re-sends a failed write with its payload, and the failed one's own
	// request lands.
	{defect: "timeout-as-failure", invariant: properties.InvariantFailedWriteLeftNoTrace, faults: "all", gapNs: 6e8, seedsMax: 8},
	// A live subscriber's read of the ephemeral stream leaves its queue
	// as it was: its next read hands it the same publishes again, more
	// often than their requests reached a broker. Measured: 29 of seeds
	// 1..40, at most 4 seeds from any start.
	{defect: "ephemeral-read-keeps-queue", invariant: properties.InvariantEphemeralLiveDelivery, faults: "all", gapNs: 6e8, seedsMax: 5},
	// The ephemeral stream serves a commit as a publish: its event
	// reaches the live subscribers without its state, answered Acked.
	// Measured: 40 of seeds 1..40.
	{defect: "ephemeral-commit-to-subscribers", invariant: properties.InvariantEphemeralRefusesCommits, faults: "all", gapNs: 6e8, seedsMax: 2},
	// Live subscribers keyed by shard alone: one tenant reads the other's
	// publishes (the workload's two tenants share every name). Measured:
	// 35 of seeds 1..40, at most 2 seeds from any start.
	{defect: "ephemeral-unscoped", invariant: properties.InvariantEphemeralLiveDelivery, faults: "all", gapNs: 6e8, seedsMax: 3},
}

// runDefectPlan runs seed for 10 simulated seconds under faults (mean gap
// gapNs, 0: the default) with the named defect on, or off.
func runDefectPlan(t *testing.T, defect, faults string, gapNs int64, seed uint64, on bool) *Result {
	t.Helper()
	return runDefectPlanTraced(t, defect, faults, gapNs, seed, on, false)
}

// runDefectPlanTraced is runDefectPlan, the brokers' trace validated
// against the model when validate is set.
func runDefectPlanTraced(t *testing.T, defect, faults string, gapNs int64, seed uint64, on, validate bool) *Result {
	t.Helper()
	f, err := ParseFaults(faults)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Seed: seed, DurationNs: 10e9, FaultGapMeanNs: gapNs, Faults: f, ValidateTrace: validate}
	if on {
		if o.Defects, err = ParseDefects(defect); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCheckerDefectsCaught: each planted bug is reported under its
// invariant within its seed budget, and the catching seed passes without
// the bug, so the catch is the bug's, not the harness's.
func TestCheckerDefectsCaught(t *testing.T) { assertCaughtUnderInvariant(t, checkerDefectCases) }

// assertCaughtUnderInvariant runs each case's seeds 1..seedsMax until one
// reports its invariant, and requires that seed to pass without the bug.
func assertCaughtUnderInvariant(t *testing.T, cases []checkerDefectCase) {
	t.Helper()
	for _, dc := range cases {
		t.Run(dc.defect, func(t *testing.T) {
			for s := uint64(1); s <= dc.seedsMax; s++ {
				res := runDefectPlan(t, dc.defect, dc.faults, dc.gapNs, s, true)
				if !hasViolation(res.Violations, dc.invariant) {
					continue
				}
				for _, v := range res.Violations {
					if v.Invariant == dc.invariant {
						t.Logf("caught on seed %d by %s: %.300s", s, v.Invariant, v.Message)
					}
				}
				assertSummaryFitsAScreen(t, res)
				if clean := runDefectPlan(t, dc.defect, dc.faults, dc.gapNs, s, false); !clean.OK() {
					t.Fatalf("seed %d without the defect fails:\n%s", s, clean.Summary())
				}
				return
			}
			t.Fatalf("defect %s not reported as %s in %d seeds with faults %s", dc.defect, dc.invariant, dc.seedsMax, dc.faults)
		})
	}
}

// summaryLinesMax is a screen: a failing run's summary must fit in it.
const summaryLinesMax = 40

// assertSummaryFitsAScreen fails when a failing run's summary runs past a
// screen, or does not name each violated invariant once with its time.
func assertSummaryFitsAScreen(t *testing.T, res *Result) {
	t.Helper()
	sum := res.Summary()
	if n := strings.Count(sum, "\n"); n > summaryLinesMax {
		t.Fatalf("the summary runs %d lines, over a screen of %d:\n%s", n, summaryLinesMax, sum)
	}
	for _, v := range res.Violations {
		if strings.Count(sum, "violation "+string(v.Invariant)+" at ") != 1 {
			t.Fatalf("the summary does not name %s once with its time:\n%s", v.Invariant, sum)
		}
	}
}

// detectionCase is one planted bug as TestDetectionSweep runs it: the
// plan that shows it and what a run must report to count as its catch.
type detectionCase struct {
	defect string
	faults string
	gapNs  int64
	// criterion names what caught means, for the report line.
	criterion string
	caught    func(*Result) bool
	// validateTrace runs the plan with the trace validated (the catch is
	// trace validation's).
	validateTrace bool
}

// detectionCases is every planted bug's catch plan, read from the tests'
// tables (TestPlantedDefectsCaught's judged by verdict and the
// invariants the bug breaks, the checkers', the groups', the store's and
// the membership checks' by their invariant, trace validation's by the
// invariant its rejection names).
func detectionCases() []detectionCase {
	var out []detectionCase
	for _, dc := range defectCases {
		criterion := fmt.Sprint(dc.family)
		if len(dc.anyOf) > 0 {
			criterion = fmt.Sprintf("%s: one of %v", dc.family, dc.anyOf)
		}
		out = append(out, detectionCase{defect: dc.defect, faults: dc.faults, gapNs: dc.gapNs, criterion: criterion,
			caught: func(res *Result) bool { return dc.judge(res) == nil }})
	}
	for _, dc := range slices.Concat(checkerDefectCases, groupDefectCases, storeDefectCases, membershipDefectCases, contractDefectCases) {
		out = append(out, detectionCase{defect: dc.defect, faults: dc.faults, gapNs: dc.gapNs, criterion: string(dc.invariant),
			caught: func(res *Result) bool { return hasViolation(res.Violations, dc.invariant) }})
	}
	for _, dc := range traceDefectCases {
		out = append(out, detectionCase{defect: dc.defect, faults: dc.faults, gapNs: dc.gapNs, criterion: "trace validation: " + string(dc.invariant),
			caught: func(res *Result) bool { return traceRejected(res, dc.invariant) }, validateTrace: true})
	}
	return out
}

// TestEveryDefectHasACatchPlan: each planted bug the CLI knows has exactly
// one plan in detectionCases, so a new one cannot go unmeasured.
func TestEveryDefectHasACatchPlan(t *testing.T) {
	plans := map[string]int{}
	for _, dc := range detectionCases() {
		plans[dc.defect]++
	}
	for _, name := range strings.Split(DefectNames(), ",") {
		if plans[name] != 1 {
			t.Errorf("defect %s has %d catch plans, want 1 (defectCases, checkerDefectCases, groupDefectCases, traceDefectCases, storeDefectCases, membershipDefectCases or contractDefectCases)", name, plans[name])
		}
		delete(plans, name)
	}
	for name := range plans {
		t.Errorf("catch plan for %s, which is not a planted defect", name)
	}
}

// TestDetectionSweep measures seeds-to-detection for every planted defect
// when FELIXSIM_DETECTION_SEEDS=N is set (skipped otherwise: it is a
// measurement, not a check): over seeds 1..N, which seeds catch the
// defect under its plan, and, starting a sweep at each seed s in 1..N, how
// many seeds it takes to reach a catching one (median and max).
// FELIXSIM_DETECTION_DEFECTS picks some defects, FELIXSIM_DETECTION_SHARD=i/n
// every n-th from the i-th (for processes side by side: make detection);
// FELIXSIM_DETECTION_FAULTS and FELIXSIM_DETECTION_GAP_NS override every
// plan's faults and gap.
func TestDetectionSweep(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("FELIXSIM_DETECTION_SEEDS"))
	if err != nil || n < 1 {
		t.Skip("set FELIXSIM_DETECTION_SEEDS=N to measure seeds-to-detection over seeds 1..N")
	}
	only := os.Getenv("FELIXSIM_DETECTION_DEFECTS")
	shard, shards := 1, 1
	if sh := os.Getenv("FELIXSIM_DETECTION_SHARD"); sh != "" {
		if _, err := fmt.Sscanf(sh, "%d/%d", &shard, &shards); err != nil || shards < 1 || shard < 1 || shard > shards {
			t.Fatalf("FELIXSIM_DETECTION_SHARD=%q refused: want i/n with 1 <= i <= n", sh)
		}
	}
	for i, dc := range detectionCases() {
		if (only != "" && !slices.Contains(strings.Split(only, ","), dc.defect)) || i%shards != shard-1 {
			continue
		}
		if f := os.Getenv("FELIXSIM_DETECTION_FAULTS"); f != "" {
			dc.faults = f // to try another fault mix
		}
		if g, err := strconv.ParseInt(os.Getenv("FELIXSIM_DETECTION_GAP_NS"), 10, 64); err == nil {
			dc.gapNs = g
		}
		caught, cpuS := make([]bool, n+1), make([]float64, n+1)
		hits := 0
		for s := 1; s <= n; s++ {
			before := processCPUSeconds(t)
			res := runDefectPlanTraced(t, dc.defect, dc.faults, dc.gapNs, uint64(s), true, dc.validateTrace)
			cpuS[s] = processCPUSeconds(t) - before
			caught[s] = dc.caught(res)
			t.Logf("%s seed %d: caught %t, %.1f simulated s, %.2f CPU s, violations %s", dc.defect, s, caught[s], float64(res.SimNs)/1e9, cpuS[s], violationNames(res))
			if caught[s] {
				hits++
			}
		}
		t.Logf("%s", detectionLine(dc, caught, cpuS, hits, n))
	}
}

// detectionLine summarises one defect's sweep: catch count, median and
// max seeds-to-detection from every start (starts with no catch after
// them are left out, and counted), and the same for the CPU those seeds'
// runs took (cpuS[s] is seed s's; see toCatch), flagged when its median
// is above detectionCPUMedianSMax.
func detectionLine(dc detectionCase, caught []bool, cpuS []float64, hits, n int) string {
	tc := toCatchFromEveryStart(caught, cpuS, n)
	if len(tc.seeds) == 0 {
		return fmt.Sprintf("%s (%s, faults %s, gap %d ns): not caught on seeds 1..%d", dc.defect, dc.criterion, dc.faults, dc.gapNs, n)
	}
	return fmt.Sprintf("%s (%s, faults %s, gap %d ns): caught on %d of %d seeds; seeds-to-detection median %d, max %d (%d starts after the last catch left out)%s",
		dc.defect, dc.criterion, dc.faults, dc.gapNs, hits, n, tc.seeds[len(tc.seeds)/2], tc.seeds[len(tc.seeds)-1], tc.censored, tc.cpuSummary())
}
