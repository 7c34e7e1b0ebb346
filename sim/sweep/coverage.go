package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/felixsim/felixsim/coverage"
)

// This file sums coverage over a sweep: every run reports how often it
// took each counted path (`felixsim run --json`'s "coverage": a fault
// kind's firings and effects, a failover, a torn tail cut at recovery,
// ...), and the report holds the totals over its seeds, so that a point
// no seed of the range reached shows as zero instead of being absent.

// addCounts adds one run's (or one shard's) counts into totals, refusing
// an empty point name and a total that would overflow.
func addCounts(totals, counts map[string]uint64) error {
	for _, name := range sortedNames(counts) {
		n := counts[name]
		if name == "" {
			return fmt.Errorf("a coverage point with an empty name")
		}
		if totals[name]+n < n {
			return fmt.Errorf("coverage point %s overflows: %d + %d", name, totals[name], n)
		}
		totals[name] += n
	}
	return nil
}

// sortedNames lists m's keys in order, so map order never reaches output.
func sortedNames(m map[string]uint64) []string {
	out := make([]string, 0, len(m))
	for name := range m {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// writeCoverage writes the "coverage" field of the JSON report, a point a
// line in name order.
func writeCoverage(b *bytes.Buffer, totals map[string]uint64) {
	if len(totals) == 0 {
		b.WriteString("  \"coverage\": {},\n")
		return
	}
	b.WriteString("  \"coverage\": {\n")
	names := sortedNames(totals)
	for i, name := range names {
		sep := ","
		if i == len(names)-1 {
			sep = ""
		}
		key, err := json.Marshal(name)
		if err != nil {
			panic(fmt.Sprintf("sweep: a string does not marshal: %v", err))
		}
		fmt.Fprintf(b, "    %s: %d%s\n", key, totals[name], sep)
	}
	b.WriteString("  },\n")
}

// NeverHit lists the points whose total is zero, by name: required ones
// (a fault kind's firing or effect, or a point declared as sometimes
// happening) and optional ones (declared as taken only by some
// configurations or planted defects).
func (r *Report) NeverHit() (required, optional []string) {
	for _, name := range sortedNames(r.Coverage) {
		if r.Coverage[name] != 0 {
			continue
		}
		if optionalPoint(name) {
			optional = append(optional, name)
		} else {
			required = append(required, name)
		}
	}
	return required, optional
}

// optionalPoint reports whether the coverage package declares name as a
// point that need not happen over a default sweep.
func optionalPoint(name string) bool {
	for _, d := range coverage.Declared() {
		if string(d.Point) == name {
			return !d.Sometimes
		}
	}
	return false
}

// faultRow is one fault kind's firings and effects.
type faultRow struct {
	kind          string
	fired, effect uint64
}

// faultPoint reads a fault kind's point name, fault.<kind>.fired or
// fault.<kind>.effect (coverage.FaultFired, coverage.FaultEffect).
func faultPoint(name string) (kind string, fired, ok bool) {
	rest, ok := strings.CutPrefix(name, "fault.")
	if !ok {
		return "", false, false
	}
	if k, ok := strings.CutSuffix(rest, ".fired"); ok && k != "" {
		return k, true, true
	}
	if k, ok := strings.CutSuffix(rest, ".effect"); ok && k != "" {
		return k, false, true
	}
	return "", false, false
}

// splitCoverage separates the fault kinds' points from the other points,
// each in name order.
func splitCoverage(totals map[string]uint64) (faults []faultRow, others []string) {
	byKind := map[string]int{}
	for _, name := range sortedNames(totals) {
		kind, fired, ok := faultPoint(name)
		if !ok {
			others = append(others, name)
			continue
		}
		i, seen := byKind[kind]
		if !seen {
			i = len(faults)
			byKind[kind] = i
			faults = append(faults, faultRow{kind: kind})
		}
		if fired {
			faults[i].fired = totals[name]
		} else {
			faults[i].effect = totals[name]
		}
	}
	sort.Slice(faults, func(i, j int) bool { return faults[i].kind < faults[j].kind })
	return faults, others
}

// writeCoverageText writes the coverage totals: a line saying over how
// many seeds, a table of fault kinds (fired, effect), a table of the other
// points, and the points never hit.
func (r *Report) writeCoverageText(b *strings.Builder) error {
	required, optional := r.NeverHit()
	fmt.Fprintf(b, "coverage: summed over %d of %d seeds, %d points, %d never hit\n",
		r.CoverageSeeds, r.SeedsRun, len(r.Coverage), len(required)+len(optional))
	if len(r.Coverage) == 0 {
		return nil
	}
	faults, others := splitCoverage(r.Coverage)
	tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
	if len(faults) > 0 {
		fmt.Fprintln(tw, "FAULT KIND\tFIRED\tEFFECT")
		for _, f := range faults {
			fmt.Fprintf(tw, "%s\t%d\t%d\n", f.kind, f.fired, f.effect)
		}
	}
	if len(others) > 0 {
		fmt.Fprintln(tw, "POINT\tTOTAL")
		for _, name := range others {
			fmt.Fprintf(tw, "%s\t%d\n", name, r.Coverage[name])
		}
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("sweep: format coverage table: %w", err)
	}
	if len(required) > 0 {
		fmt.Fprintf(b, "never hit: %s\n", strings.Join(required, ", "))
	}
	if len(optional) > 0 {
		fmt.Fprintf(b, "never hit, optional (only some configurations or defects take them): %s\n", strings.Join(optional, ", "))
	}
	return nil
}
