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
	r.Shard, r.SeedsRun, r.SeedsRepeated, r.Seconds = Shard{Index: i, Count: 3}.String(), n, 0, float64(i)
	for s, ok := sched.First(); ok; s, ok = sched.Next(s) {
		r.LastSeed = s
	}
	r.Failures = nil
	for _, s := range failing {
		r.Failures = append(r.Failures, Failure{Seed: s, Invariant: "NoPartialCommit", Family: FamilySafety, ExitCode: 1,
			Reproduce: "felixsim run --seed " + strconv.FormatUint(s, 10)})
	}
	return r
}

func TestMergeShards(t *testing.T) {
	in := []NamedReport{{"c", shardOf(3, 3, 9)}, {"a", shardOf(1, 1, 7)}, {"b", shardOf(2, 5)}}
	m, err := Merge(in)
	if err != nil {
		t.Fatal(err)
	}
	var seeds []uint64
	for _, f := range m.Failures {
		seeds = append(seeds, f.Seed)
	}
	if m.Shard != "1/1" || m.SeedsRun != 10 || m.LastSeed != 10 || !m.Complete || m.Seconds != 3 ||
		len(seeds) != 5 || seeds[0] != 1 || seeds[1] != 3 || seeds[2] != 5 || seeds[3] != 7 || seeds[4] != 9 {
		t.Fatalf("merged: %+v (failing seeds %v)", m, seeds)
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
	cases := map[string]struct {
		in   []NamedReport
		want string
	}{
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
