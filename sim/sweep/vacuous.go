package sweep

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
)

// VacuousSeed is one seed whose run reported itself vacuous: its workload
// got too little done for the checks to judge much (see `felixsim run
// --json`'s vacuous_reason). Vacuous is not a failure; a sweep counts and
// lists such seeds so that a green sweep says how much of it tested little.
type VacuousSeed struct {
	Seed uint64 `json:"seed"`
	// Reason is the run's vacuous_reason, cut to MessageLenMax.
	Reason string `json:"reason"`
}

// VacuousPct is the share of the seeds run that were vacuous, in percent
// (0 when no seed ran).
func (r *Report) VacuousPct() float64 {
	if r.SeedsRun == 0 {
		return 0
	}
	return 100 * float64(r.Vacuous) / float64(r.SeedsRun)
}

// VacuousLine is the report's vacuous summary, "vacuous: K of N seeds (x%)".
func (r *Report) VacuousLine() string {
	return fmt.Sprintf("vacuous: %d of %d seeds (%.1f%%)", r.Vacuous, r.SeedsRun, r.VacuousPct())
}

// writeVacuousText writes the vacuous line and, when some seed was
// vacuous, a table of those seeds and their reasons.
func (r *Report) writeVacuousText(b *strings.Builder) error {
	fmt.Fprintln(b, r.VacuousLine())
	if len(r.VacuousSeeds) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VACUOUS SEED\tREASON")
	for _, v := range r.VacuousSeeds {
		fmt.Fprintf(tw, "%d\t%s\n", v.Seed, v.Reason)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("sweep: format vacuous table: %w", err)
	}
	return nil
}

// sortVacuous puts the vacuous seeds in seed order.
func (r *Report) sortVacuous() {
	sort.Slice(r.VacuousSeeds, func(i, j int) bool { return r.VacuousSeeds[i].Seed < r.VacuousSeeds[j].Seed })
}
