package sweep

import (
	"strconv"
	"strings"
	"testing"
)

// shardOf is sampleReport's sweep (seeds 1..10) as shard i/3 with the
// given failing seeds; its counts follow from the shard's seeds.
func shardOf(i uint64, failing ...uint64) *Report {
	r := sampleReport()
	sched := Schedule{Range: Range{First: 1, Last: 10}, Shard: Shard{Index: i, Count: 3}}
	n, _ := sched.Count()
	r.Shard, r.SeedsRun, r.SeedsRepeated, r.Seconds, r.CPUSeconds = Shard{Index: i, Count: 3}.String(), n, 0, float64(i), 2*float64(i)
	r.JobSeconds = float64(i) * float64(r.Jobs) // its 2 jobs' slots for its i seconds
	for s, ok := sched.First(); ok; s, ok = sched.Next(s) {
		r.LastSeed = s
	}
	r.Failures, r.Vacuous, r.VacuousSeeds, r.CoverageSeeds = nil, 0, nil, n
	r.Coverage = map[string]uint64{"raft.failover": i, "fault.kill.fired": 10 * i, "fault.kill.effect": 0}
	for _, s := range failing {
		r.Failures = append(r.Failures, Failure{Seed: s, Invariant: "NoPartialCommit", Family: FamilySafety, ExitCode: 1,
			Reproduce: "felixsim run --seed " + strconv.FormatUint(s, 10)})
	}
	return r
}

// withVacuous marks seeds of r vacuous.
func withVacuous(r *Report, seeds ...uint64) *Report {
	for _, s := range seeds {
		r.VacuousSeeds = append(r.VacuousSeeds, VacuousSeed{Seed: s, Reason: "few writes"})
	}
	r.Vacuous = uint64(len(r.VacuousSeeds))
	return r
}

func TestMergeShards(t *testing.T) {
	in := []NamedReport{{"c", withVacuous(shardOf(3, 3, 9), 6, 9)}, {"a", withVacuous(shardOf(1, 1, 7), 4)}, {"b", shardOf(2, 5)}}
	m, err := Merge(in)
	if err != nil {
		t.Fatal(err)
	}
	// Shard i reports raft.failover i and fault.kill.fired 10*i over its
	// 4, 3 and 3 seeds: the sums are 1+2+3 and 10+20+30 over 10 seeds.
	if m.Coverage["raft.failover"] != 6 || m.Coverage["fault.kill.fired"] != 60 || len(m.Coverage) != 3 || m.CoverageSeeds != 10 {
		t.Fatalf("merged coverage %v over %d seeds, want raft.failover 6, fault.kill.fired 60, fault.kill.effect 0 over 10", m.Coverage, m.CoverageSeeds)
	}
	if m.Vacuous != 3 || len(m.VacuousSeeds) != 3 || m.VacuousSeeds[0].Seed != 4 || m.VacuousSeeds[1].Seed != 6 || m.VacuousSeeds[2].Seed != 9 {
		t.Fatalf("merged vacuous %d: %+v, want seeds 4, 6, 9", m.Vacuous, m.VacuousSeeds)
	}
	if _, ok := m.Coverage["fault.kill.effect"]; !ok {
		t.Fatalf("the merge dropped a point no shard reached: %v", m.Coverage)
	}
	var seeds []uint64
	for _, f := range m.Failures {
		seeds = append(seeds, f.Seed)
	}
	// Shards side by side: the longest wall time, and every worker's CPU
	// (2, 4 and 6 s) and every shard's jobs (2 each).
	if m.Shard != "1/1" || m.SeedsRun != 10 || m.LastSeed != 10 || !m.Complete || m.Seconds != 3 || m.CPUSeconds != 12 || m.Jobs != 6 ||
		len(seeds) != 5 || seeds[0] != 1 || seeds[1] != 3 || seeds[2] != 5 || seeds[3] != 7 || seeds[4] != 9 {
		t.Fatalf("merged: %+v (failing seeds %v)", m, seeds)
	}
	// The shards ran for 1, 2 and 3 s with 2 jobs each: 12 s of job
	// slots, all busy; the merge claims no CPUs of its own.
	if h := m.Headline(); m.Shards != 3 || m.JobSeconds != 12 || m.CPUUtilisation() != 1 || strings.Contains(h, "CPUs") ||
		!strings.Contains(h, "the workers kept their job slots 100% busy, over the 3 shards' wall times") {
		t.Fatalf("merged %d shards, %v job seconds, headline %q", m.Shards, m.JobSeconds, h)
	}
	partial := shardOf(2)
	partial.Complete, partial.SeedsRun = false, 1
	if m, err := Merge([]NamedReport{{"a", shardOf(1)}, {"b", partial}, {"c", shardOf(3)}}); err != nil || m.Complete || m.SeedsRun != 8 {
		t.Fatalf("merge with an incomplete shard: %+v, %v", m, err)
	}
}

func TestMergeRefuses(t *testing.T) {
	other := shardOf(3)
	other.Defects = "none"
	twoShards := shardOf(2)
	twoShards.Shard = "2/2"
	overflow := shardOf(2)
	overflow.Coverage["raft.failover"] = 1<<64 - 1
	cases := map[string]struct {
		in   []NamedReport
		want string
	}{
		"vacuous overlap": {[]NamedReport{{"a", withVacuous(shardOf(1), 5)}, {"b", withVacuous(shardOf(2), 5)}, {"c", shardOf(3)}},
			"seed 5 is vacuous in both a and b"},
		"overflow":      {[]NamedReport{{"a", shardOf(1)}, {"b", overflow}, {"c", shardOf(3)}}, "b: coverage point raft.failover overflows"},
		"nothing":       {nil, "no reports"},
		"missing shard": {[]NamedReport{{"a", shardOf(1)}, {"c", shardOf(3)}}, "shard(s) [2] of 3 missing"},
		"repeated":      {[]NamedReport{{"a", shardOf(1)}, {"a2", shardOf(1)}, {"b", shardOf(2)}, {"c", shardOf(3)}}, "a and a2 are both shard 1/3"},
		"other sweep":   {[]NamedReport{{"a", shardOf(1)}, {"b", shardOf(2)}, {"c", other}}, "a and c are different sweeps"},
		"other count":   {[]NamedReport{{"a", shardOf(1)}, {"b", twoShards}}, "b is shard 2/2 but a is of 3 shards"},
	}
	for name, c := range cases {
		if _, err := Merge(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
}
