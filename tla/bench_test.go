package tla

import "testing"

// BenchmarkExploreMain measures the explorer on the main config, invariants
// checked on every state, and reports distinct states per minute. Run it on
// one core to compare with TLC -workers 1:
//
//	GOMAXPROCS=1 go test -run '^$' -bench ExploreMain -benchmem -count 5 ./tla/
func BenchmarkExploreMain(b *testing.B) {
	cfg, err := Select("", "")
	if err != nil {
		b.Fatal(err)
	}
	distinct := 0
	for b.Loop() {
		res, err := Explore(cfg)
		if err != nil {
			b.Fatal(err)
		}
		distinct += res.Distinct
	}
	b.ReportMetric(float64(distinct)/b.Elapsed().Minutes(), "distinct-states/min")
}

// BenchmarkCheckInvariants measures checking all six invariants on one
// state (three brokers with a commit applied).
func BenchmarkCheckInvariants(b *testing.B) {
	cfg, err := Select("", "")
	if err != nil {
		b.Fatal(err)
	}
	c := newChecker(cfg)
	s := appliedOne()
	for b.Loop() {
		if name, err := c.check(&s); name != "" {
			b.Fatal(err)
		}
	}
}
