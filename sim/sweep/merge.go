package sweep

import (
	"fmt"
)

// NamedReport is a report and the file it came from, for merge's errors.
type NamedReport struct {
	Name   string
	Report *Report
}

// Merge combines the reports of one sweep's shards 1/n..n/n into the
// report of the whole range, as an unsharded sweep would have written it
// (wall time aside: the merge keeps the longest shard's): failures and
// vacuous seeds listed together in seed order, counts and coverage summed. It refuses
// reports of different sweeps (range, duration, faults, defects, repeat
// fraction), a missing or repeated shard, and a failing seed reported twice.
func Merge(in []NamedReport) (*Report, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("merge refused: no reports")
	}
	first := in[0]
	count, err := shardCount(first)
	if err != nil {
		return nil, err
	}
	seen := make(map[uint64]string, len(in))
	out := *first.Report
	out.Shard, out.SeedsRun, out.SeedsRepeated, out.LastSeed, out.Complete, out.Seconds, out.CPUSeconds, out.Jobs = "1/1", 0, 0, 0, true, 0, 0, 0
	out.Shards, out.JobSeconds = 0, 0
	out.Failures, out.VacuousSeeds, out.Vacuous, out.CoverageSeeds = []Failure{}, []VacuousSeed{}, 0, 0
	out.Coverage = map[string]uint64{}
	out.ModelStates, out.ModelStatesSeeds, out.SteerArms = nil, 0, nil
	failing, vacuous := map[uint64]string{}, map[uint64]string{}
	for _, nr := range in {
		r := nr.Report
		if err := sameSweep(first, nr); err != nil {
			return nil, err
		}
		sh, err := ParseShard(r.Shard)
		if err != nil {
			return nil, fmt.Errorf("merge refused: %s: %w", nr.Name, err)
		}
		if sh.Count != count {
			return nil, fmt.Errorf("merge refused: %s is shard %s but %s is of %d shards", nr.Name, r.Shard, first.Name, count)
		}
		if prev, dup := seen[sh.Index]; dup {
			return nil, fmt.Errorf("merge refused: %s and %s are both shard %s", prev, nr.Name, r.Shard)
		}
		seen[sh.Index] = nr.Name
		for _, f := range r.Failures {
			if prev, dup := failing[f.Seed]; dup {
				return nil, fmt.Errorf("merge refused: seed %d fails in both %s and %s: their shards overlap", f.Seed, prev, nr.Name)
			}
			failing[f.Seed] = nr.Name
			out.Failures = append(out.Failures, f)
		}
		for _, v := range r.VacuousSeeds {
			if prev, dup := vacuous[v.Seed]; dup {
				return nil, fmt.Errorf("merge refused: seed %d is vacuous in both %s and %s: their shards overlap", v.Seed, prev, nr.Name)
			}
			vacuous[v.Seed] = nr.Name
			out.VacuousSeeds = append(out.VacuousSeeds, v)
		}
		if err := addCounts(out.Coverage, r.Coverage); err != nil {
			return nil, fmt.Errorf("merge refused: %s: %w", nr.Name, err)
		}
		if err := out.mergeModelStates(r); err != nil {
			return nil, fmt.Errorf("merge refused: %s: %w", nr.Name, err)
		}
		out.Vacuous += r.Vacuous
		out.CoverageSeeds += r.CoverageSeeds
		out.SeedsRun += r.SeedsRun
		out.SeedsRepeated += r.SeedsRepeated
		out.LastSeed = max(out.LastSeed, r.LastSeed)
		out.Complete = out.Complete && r.Complete
		out.Seconds = max(out.Seconds, r.Seconds)
		out.CPUSeconds += r.CPUSeconds
		out.Jobs += r.Jobs
		out.Shards += r.Shards
		out.JobSeconds += r.JobSeconds
	}
	if missing := missingShards(seen, count); len(missing) > 0 {
		return nil, fmt.Errorf("merge refused: shard(s) %v of %d missing", missing, count)
	}
	out.sortFailures()
	out.sortVacuous()
	out.ModelStatesVisited = 0 // counted again by the caller (CountModelStates)
	return &out, nil
}

// shardCount is the number of shards nr says the sweep has.
func shardCount(nr NamedReport) (uint64, error) {
	sh, err := ParseShard(nr.Report.Shard)
	if err != nil {
		return 0, fmt.Errorf("merge refused: %s: %w", nr.Name, err)
	}
	return sh.Count, nil
}

// sameSweep refuses b when it is a shard of another sweep than a.
func sameSweep(a, b NamedReport) error {
	x, y := a.Report, b.Report
	type key struct {
		format, seeds, duration, faults, defects string
		repeat                                   float64
	}
	kx := key{x.Format, x.Seeds, x.Duration, x.Faults, x.Defects, x.RepeatFraction}
	ky := key{y.Format, y.Seeds, y.Duration, y.Faults, y.Defects, y.RepeatFraction}
	if kx != ky {
		return fmt.Errorf("merge refused: %s and %s are different sweeps: %+v vs %+v", a.Name, b.Name, kx, ky)
	}
	return nil
}

// missingShards lists the indices 1..count not in seen.
func missingShards(seen map[uint64]string, count uint64) []uint64 {
	var out []uint64
	for i := uint64(1); i <= count && len(out) < 10; i++ {
		if _, ok := seen[i]; !ok {
			out = append(out, i)
		}
	}
	return out
}
