package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/felixsim/felixsim/sim/verdict"
)

// ReportFormat names the report's JSON format and its version, on the
// report's first line; the reader accepts this one, ReportFormatV3 and
// ReportFormatV2.
//
// Version 2 added vacuous, vacuous_seeds, coverage_seeds and coverage
// (and, later and optional, cpu_seconds, jobs, the model states and the
// steering arms). Version 3 added verdict (the one rule's over the
// failing seeds), shards (how many shard reports a merge combined) and
// job_seconds (the wall time of every worker slot, summed: what a merged
// report's CPU use is measured against), and requires cpu_seconds and
// jobs.
//
// Version 4 widened model_states' codes to every group size (a
// three-member group's codes are unchanged, so a version 3 report reads
// as it is).
const ReportFormat = "felixsim-sweep-report/4"

// ReportFormatV3 is the previous version, read as version 4.
const ReportFormatV3 = "felixsim-sweep-report/3"

// ReportFormatV2 is the previous version, still read: its verdict is
// computed from its failures, it is one shard, and its job seconds are
// its seconds times its jobs.
const ReportFormatV2 = "felixsim-sweep-report/2"

// The files a sweep's (or a merge's) --out directory holds besides each
// failing seed's seed-N.json: the report as JSON and as JUnit XML.
const (
	ReportJSONFile = "report.json"
	ReportXMLFile  = "report.xml"
)

// Report is what a sweep (or a merge of shard sweeps) found.
type Report struct {
	Format string `json:"format"`
	// Seeds is the range swept and Shard the part of it this report covers.
	Seeds string `json:"seeds"`
	Shard string `json:"shard"`
	// Duration, Faults and Defects are the flags every run got.
	Duration string `json:"duration"`
	Faults   string `json:"faults"`
	Defects  string `json:"defects"`
	// RepeatFraction is the share of seeds run twice with hashes compared.
	RepeatFraction float64 `json:"repeat_fraction"`
	// SeedsRun counts the seeds that reached a verdict; SeedsRepeated those
	// of them run twice.
	SeedsRun      uint64 `json:"seeds_run"`
	SeedsRepeated uint64 `json:"seeds_repeated"`
	// LastSeed is the highest seed run (0 when none ran).
	LastSeed uint64 `json:"last_seed"`
	// Complete says every seed of the shard's schedule ran (false when
	// time ran out or the sweep was interrupted).
	Complete bool `json:"complete"`
	// Failures are the failing seeds in increasing seed order.
	Failures []Failure `json:"failures"`
	// Vacuous counts the seeds whose run reported itself vacuous (too
	// little progress for its checks to mean much; passing or failing);
	// VacuousSeeds lists them with the run's reason, in seed order.
	Vacuous      uint64        `json:"vacuous"`
	VacuousSeeds []VacuousSeed `json:"vacuous_seeds"`
	// CoverageSeeds counts the seeds whose run reported coverage counts
	// (a crashed or timed-out worker reports none), and Coverage sums
	// those counts by point name: every point the sweep was told runs may
	// count (Options.Points) with its total, zero included, and any other
	// point a run reported.
	CoverageSeeds uint64            `json:"coverage_seeds"`
	Coverage      map[string]uint64 `json:"coverage"`
	// Seconds is the wall time the sweep took (for a merge, the longest
	// shard's, as when the shards run side by side).
	Seconds float64 `json:"seconds"`
	// CPUSeconds is the user and system CPU time of every worker process,
	// summed (0 in a report written before the field existed): with
	// SeedsRun it gives seeds per CPU-minute, which the machine's load
	// and the number of jobs move far less than wall time.
	CPUSeconds float64 `json:"cpu_seconds"`
	// Jobs is how many worker processes ran at once (for a merge, summed
	// over the shards; 0 in a report written before the field existed).
	Jobs int `json:"jobs"`
	// Shards is how many shard reports this report combines: 1 for a
	// sweep, the shard count for a merge.
	Shards int `json:"shards"`
	// JobSeconds is the wall time of every worker slot, summed: Seconds
	// times Jobs for a sweep, the shards' sum for a merge (whose shards
	// ran for different times, perhaps on different machines). With
	// CPUSeconds it gives how busy the workers kept their slots
	// (CPUUtilisation).
	JobSeconds float64 `json:"job_seconds"`
	// ModelStatesSeeds counts the seeds whose run reported projected model
	// states, ModelStates is the union of those states (sorted codes,
	// tla.ProjectedState), and ModelStatesVisited counts those among the
	// model's ModelStatesReachable (0 and 0: not counted). Absent from a
	// report of runs that validated no trace (modelstates.go).
	ModelStatesSeeds     uint64   `json:"model_states_seeds,omitempty"`
	ModelStates          []uint64 `json:"model_states,omitempty"`
	ModelStatesVisited   int      `json:"model_states_visited,omitempty"`
	ModelStatesReachable int      `json:"model_states_reachable,omitempty"`
	// SteerArms is each steering arm's record, in the order the sweep
	// indexed them; absent unless the sweep steered (steer.go).
	SteerArms []ArmStats `json:"steer_arms,omitempty"`
	// modelStateShapes are the counter's lines, one per group shape, for
	// the summary (not in the JSON: counted again from ModelStates).
	modelStateShapes []string
}

// SeedsPerMinute is how many seeds the sweep ran per minute of wall time
// (0 when no time was recorded): the throughput that --jobs should
// multiply (make sweep-scale).
func (r *Report) SeedsPerMinute() float64 {
	if r.Seconds <= 0 {
		return 0
	}
	return float64(r.SeedsRun) / (r.Seconds / 60)
}

// CPUUtilisation is the workers' CPU time over the wall time of their
// slots (JobSeconds): 1 when every worker kept a core busy all along, less
// for the time a worker waited (process start, a straggler at the end); a
// worker whose garbage collector runs beside it can push it past 1. 0
// when the slots' time or the CPU time is unknown.
func (r *Report) CPUUtilisation() float64 {
	if r.JobSeconds <= 0 {
		return 0
	}
	return r.CPUSeconds / r.JobSeconds
}

// Verdict is the sweep's verdict by the one rule (package verdict): the
// most serious of its failing seeds' (safety over liveness over no
// verdict: a crash, a timeout, a determinism mismatch), pass when none
// failed, and no verdict when no seed ran. A failure of a family no
// verdict has is refused by the reader, and is no verdict here.
func (r *Report) Verdict() verdict.Verdict {
	if r.SeedsRun == 0 {
		return verdict.NoVerdict
	}
	w := verdict.Pass
	for _, f := range r.Failures {
		v, err := VerdictOfFamily(f.Family)
		if err != nil {
			v = verdict.NoVerdict
		}
		w = verdict.Worst(w, v)
	}
	return w
}

// SeedsPerCPUMinute is how many seeds the sweep ran per minute of worker
// CPU time (0 when no CPU time was recorded).
func (r *Report) SeedsPerCPUMinute() float64 {
	if r.CPUSeconds <= 0 {
		return 0
	}
	return float64(r.SeedsRun) / (r.CPUSeconds / 60)
}

// Failure is one failing seed.
type Failure struct {
	Seed uint64 `json:"seed"`
	// Invariant is the first property the run found violated.
	Invariant string `json:"invariant"`
	// Family is safety, liveness, crash or determinism (see FamilyOf).
	Family string `json:"family"`
	// ExitCode is the worker's exit code (-1 when the sweep stopped it).
	ExitCode int `json:"exit_code"`
	// Message is the violation's message, cut to MessageLenMax.
	Message string `json:"message"`
	// Reproduce is the paste-ready command that reruns the seed.
	Reproduce string `json:"reproduce"`
}

// OK reports whether no seed failed.
func (r *Report) OK() bool { return len(r.Failures) == 0 }

// sortFailures puts the failures in seed order.
func (r *Report) sortFailures() {
	sort.Slice(r.Failures, func(i, j int) bool { return r.Failures[i].Seed < r.Failures[j].Seed })
}

// WriteJSON writes the report as one JSON object: a field a line, and
// each failure on a line of its own, so a reader's error can name the
// line of the failure it refuses.
func (r *Report) WriteJSON(w io.Writer) error {
	var b bytes.Buffer
	format, err := json.Marshal(r.Format)
	if err != nil {
		return fmt.Errorf("sweep: encode report format: %w", err)
	}
	fmt.Fprintf(&b, "{\"format\": %s,\n", format) // the version on the first line
	for _, f := range []struct {
		key   string
		value any
	}{{"verdict", r.Verdict()}, {"seeds", r.Seeds}, {"shard", r.Shard}, {"duration", r.Duration},
		{"faults", r.Faults}, {"defects", r.Defects}, {"repeat_fraction", r.RepeatFraction},
		{"seeds_run", r.SeedsRun}, {"seeds_repeated", r.SeedsRepeated}, {"last_seed", r.LastSeed},
		{"complete", r.Complete}, {"failures", nil}, {"vacuous", r.Vacuous}, {"vacuous_seeds", nil},
		{"coverage_seeds", r.CoverageSeeds}, {"coverage", nil}, {"cpu_seconds", r.CPUSeconds}, {"jobs", r.Jobs},
		{"shards", r.Shards}, {"job_seconds", r.JobSeconds},
		{"model_states_seeds", r.ModelStatesSeeds}, {"model_states", r.ModelStates}, {"model_states_visited", r.ModelStatesVisited},
		{"model_states_reachable", r.ModelStatesReachable}, {"steer_arms", r.SteerArms}} {
		switch f.key {
		case "model_states_seeds", "model_states", "model_states_visited", "model_states_reachable":
			if r.ModelStatesSeeds == 0 {
				continue // optional: a sweep of runs without trace validation
			}
		case "steer_arms":
			if len(r.SteerArms) == 0 {
				continue // optional: an unsteered sweep
			}
		case "failures":
			writeFailures(&b, r.Failures)
			continue
		case "vacuous_seeds":
			writeVacuousSeeds(&b, r.VacuousSeeds)
			continue
		case "coverage":
			writeCoverage(&b, r.Coverage)
			continue
		}
		v, err := json.Marshal(f.value)
		if err != nil {
			return fmt.Errorf("sweep: encode report field %s: %w", f.key, err)
		}
		fmt.Fprintf(&b, "  %q: %s,\n", f.key, v)
	}
	secs, err := json.Marshal(r.Seconds)
	if err != nil {
		return fmt.Errorf("sweep: encode report seconds: %w", err)
	}
	fmt.Fprintf(&b, "  \"seconds\": %s\n}\n", secs)
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("sweep: write report: %w", err)
	}
	return nil
}

// writeFailures writes the "failures" field, one failure a line.
func writeFailures(b *bytes.Buffer, fs []Failure) { writeList(b, "failures", fs) }

// writeVacuousSeeds writes the "vacuous_seeds" field, one seed a line.
func writeVacuousSeeds(b *bytes.Buffer, vs []VacuousSeed) { writeList(b, "vacuous_seeds", vs) }

// writeList writes the array field key, one element a line, so that a
// reader's error can name the line of the element it refuses.
func writeList[T Failure | VacuousSeed](b *bytes.Buffer, key string, xs []T) {
	if len(xs) == 0 {
		fmt.Fprintf(b, "  %q: [],\n", key)
		return
	}
	fmt.Fprintf(b, "  %q: [\n", key)
	for i, x := range xs {
		v, err := json.Marshal(x)
		if err != nil {
			panic(fmt.Sprintf("sweep: a %T of strings and numbers does not marshal: %v", x, err))
		}
		sep := ","
		if i == len(xs)-1 {
			sep = ""
		}
		fmt.Fprintf(b, "    %s%s\n", v, sep)
	}
	b.WriteString("  ],\n")
}

// Headline is the report's one-line summary.
func (r *Report) Headline() string {
	state := "complete"
	if !r.Complete {
		state = "incomplete"
	}
	rate := ""
	if r.Jobs > 0 && r.Seconds > 0 {
		rate = fmt.Sprintf(" (%.1f seeds per minute, %d jobs)", r.SeedsPerMinute(), r.Jobs)
	}
	if r.Jobs > 0 && r.Seconds > 0 && r.Shards > 1 {
		rate = fmt.Sprintf(" (the longest of %d shards; %d jobs over them)", r.Shards, r.Jobs)
	}
	cpu := ""
	if r.CPUSeconds > 0 {
		cpu = fmt.Sprintf(", %.1f s of worker CPU (%.0f seeds per CPU-minute", r.CPUSeconds, r.SeedsPerCPUMinute())
		switch u := r.CPUUtilisation(); {
		case u > 0 && r.Shards > 1:
			cpu += fmt.Sprintf("; the workers kept their job slots %.0f%% busy, over the %d shards' wall times", 100*u, r.Shards)
		case u > 0:
			cpu += fmt.Sprintf("; the workers kept %.0f%% of their %d CPUs busy", 100*u, r.Jobs)
		}
		cpu += ")"
	}
	return fmt.Sprintf("sweep seeds %s shard %s (%s), verdict %s: %d seeds run, %d of them twice, %d failing, %.1f s%s%s",
		r.Seeds, r.Shard, state, r.Verdict(), r.SeedsRun, r.SeedsRepeated, len(r.Failures), r.Seconds, rate, cpu)
}

// WriteText writes the headline, a table of the failing seeds (seed,
// invariant, family and the command that reproduces each), the vacuous
// seeds with their reasons, and the coverage summed over the seeds.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintln(&b, r.Headline())
	if len(r.Failures) > 0 {
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SEED\tINVARIANT\tFAMILY\tREPRODUCE")
		for _, f := range r.Failures {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", f.Seed, f.Invariant, f.Family, f.Reproduce)
		}
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("sweep: format table: %w", err)
		}
	}
	if err := r.writeVacuousText(&b); err != nil {
		return err
	}
	if err := r.writeCoverageText(&b); err != nil {
		return err
	}
	r.writeModelStatesText(&b)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("sweep: write report: %w", err)
	}
	return nil
}

// Equal reports whether two reports say the same, wall and CPU time, the
// number of jobs and of shards aside.
func (r *Report) Equal(o *Report) bool {
	a, b := *r, *o
	a.Seconds, b.Seconds, a.CPUSeconds, b.CPUSeconds, a.Jobs, b.Jobs = 0, 0, 0, 0, 0, 0
	a.JobSeconds, b.JobSeconds, a.Shards, b.Shards = 0, 0, 0, 0
	if len(a.Failures) == 0 && len(b.Failures) == 0 {
		a.Failures, b.Failures = nil, nil
	}
	if len(a.VacuousSeeds) == 0 && len(b.VacuousSeeds) == 0 {
		a.VacuousSeeds, b.VacuousSeeds = nil, nil
	}
	if len(a.Coverage) == 0 && len(b.Coverage) == 0 {
		a.Coverage, b.Coverage = nil, nil
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}
