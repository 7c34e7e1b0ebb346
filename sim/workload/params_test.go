package workload

import (
	"testing"

	"github.com/felixsim/felixsim/sim/faultplan"
	"pgregory.net/rapid"
)

// TestParamsRoundTrip: a config's params, written into a plan, printed,
// parsed back and applied, give the same params (and so the same shape).
func TestParamsRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := Config{Brokers: 3, FirstSimID: 3, Shards: 4,
			Clients:         rapid.IntRange(1, 16).Draw(t, "clients"),
			EntityKeys:      rapid.IntRange(1, 100).Draw(t, "keys"),
			OpGapMeanNs:     rapid.Int64Range(OpGapMeanNsMin, 1e10).Draw(t, "gap"),
			InFlightMax:     rapid.IntRange(1, 64).Draw(t, "inflight"),
			CallTimeoutNs:   rapid.Int64Range(1, 1e11).Draw(t, "timeout"),
			RetryUnknownPct: rapid.IntRange(-1, 100).Draw(t, "retry"),
			StartSpreadNs:   rapid.Int64Range(0, 1e11).Draw(t, "spread")}
		plan := &faultplan.Plan{Seed: 1, Nodes: 3, Workload: c.Params()}
		back, err := faultplan.ParsePlan(plan.String())
		if err != nil {
			t.Fatalf("plan with workload params does not parse: %v\n%s", err, plan.String())
		}
		got, err := Config{Brokers: 3, FirstSimID: 3, Shards: 4}.WithParams(back.Workload)
		if err != nil {
			t.Fatal(err)
		}
		a, b := c.Params(), got.Params()
		if len(a) != len(b) {
			t.Fatalf("params %v became %v", a, b)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("param %s: %d became %d", a[i].Name, a[i].Value, b[i].Value)
			}
		}
	})
}

func TestWithParamsRefuses(t *testing.T) {
	base := Config{Brokers: 3, FirstSimID: 3, Shards: 4}
	for name, ps := range map[string][]faultplan.Param{
		"unknown name":    {{Name: "speed", Value: 1}},
		"negative gap":    {{Name: ParamOpGapMeanNs, Value: -1}},
		"retry over 100":  {{Name: ParamRetryUnknownPct, Value: 101}},
		"negative spread": {{Name: ParamStartSpreadNs, Value: -1}},
		"huge":            {{Name: ParamClients, Value: 1 << 50}},
	} {
		if _, err := base.WithParams(ps); err == nil {
			t.Errorf("%s: params %v accepted", name, ps)
		}
	}
}
