package sim

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func genPlan(t *rapid.T) *Plan {
	nodes := rapid.IntRange(1, 8).Draw(t, "nodes")
	p := &Plan{Seed: rapid.Uint64().Draw(t, "seed"), Nodes: nodes, DurationNs: rapid.Int64Range(0, 1e12).Draw(t, "dur")}
	names := rapid.SliceOfDistinct(rapid.StringMatching(`[a-z0-9_]{1,8}`), func(s string) string { return s }).Draw(t, "names")
	sortStrings(names)
	for _, n := range names {
		p.Workload = append(p.Workload, Param{Name: n, Value: rapid.Int64().Draw(t, "v")})
	}
	at := int64(0)
	for i := rapid.IntRange(0, 20).Draw(t, "faults"); i > 0; i-- {
		at += rapid.Int64Range(0, 1e9).Draw(t, "gap")
		f := FaultEvent{AtNs: at, Kind: FaultKind(rapid.IntRange(1, int(faultKindCount)-1).Draw(t, "kind")),
			Node: rapid.IntRange(0, nodes-1).Draw(t, "node"), Peer: rapid.IntRange(0, nodes-1).Draw(t, "peer"),
			Mask: rapid.Uint64Range(0, 1<<uint(nodes)-1).Draw(t, "mask"), DurNs: rapid.Int64Range(0, 1e10).Draw(t, "durns")}
		switch f.Kind {
		case FaultClockJump:
			f.Value = rapid.Int64Range(-1e12, 1e12).Draw(t, "value")
		case FaultClockDrift:
			f.Value = rapid.Int64Range(-DriftPpmMax, DriftPpmMax).Draw(t, "value")
		case FaultKill:
			f.Value = rapid.Int64Range(0, 1).Draw(t, "value")
		default:
			f.Value = rapid.Int64Range(0, ppmScale).Draw(t, "value")
		}
		if f.Kind.targetsNode() && rapid.Bool().Draw(t, "byRole") {
			f.Role = rapid.StringMatching(`[a-z0-9_]{1,8}`).Draw(t, "role")
		}
		if (f.Kind == FaultPartition || f.Kind == FaultOneWay) && f.Node == f.Peer && f.Role == "" {
			if nodes == 1 {
				continue
			}
			f.Peer = (f.Node + 1) % nodes
		}
		p.Faults = append(p.Faults, f)
	}
	return p
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestPlanRoundTrip: every valid plan prints and parses back to itself.
func TestPlanRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genPlan(t)
		if err := p.Validate(); err != nil {
			t.Fatalf("generator made an invalid plan: %v\n%s", err, p)
		}
		q, err := ParsePlan(p.String())
		if err != nil {
			t.Fatalf("parse: %v\n%s", err, p)
		}
		if q.String() != p.String() {
			t.Fatalf("round trip changed the plan:\n%s\nvs\n%s", p, q)
		}
	})
}

func TestGeneratedPlansRoundTripAndRespectKnobs(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		p, err := Generate(Knobs{Seed: seed, Nodes: 4, ExemptMask: 0b1000, DurationNs: 5e9, FaultGapMeanNs: 1e8, Swarm: true,
			Workload: []Param{{Name: "clients", Value: 2}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Faults) == 0 {
			t.Fatalf("seed %d: no faults in 5 s at a 100 ms mean gap", seed)
		}
		q, err := ParsePlan(p.String())
		if err != nil || q.String() != p.String() {
			t.Fatalf("seed %d: generated plan does not round-trip: %v", seed, err)
		}
		for _, f := range p.Faults {
			if (f.Kind.targetsNode() && f.Node == 3) || ((f.Kind == FaultPartition || f.Kind == FaultOneWay) && f.Peer == 3) {
				t.Fatalf("seed %d: %s aims at the exempt node 3", seed, f)
			}
		}
		again, _ := Generate(Knobs{Seed: seed, Nodes: 4, ExemptMask: 0b1000, DurationNs: 5e9, FaultGapMeanNs: 1e8, Swarm: true,
			Workload: []Param{{Name: "clients", Value: 2}}})
		if again.String() != p.String() {
			t.Fatalf("seed %d: Generate is not a function of its knobs", seed)
		}
	}
}

// TestSwarmVariesKinds: across seeds the swarm picks different subsets.
func TestSwarmVariesKinds(t *testing.T) {
	subsets := map[string]bool{}
	for seed := uint64(1); seed <= 30; seed++ {
		p, _ := Generate(Knobs{Seed: seed, Nodes: 3, DurationNs: 1e10, FaultGapMeanNs: 1e7, Swarm: true})
		used := make([]bool, faultKindCount)
		for _, f := range p.Faults {
			used[f.Kind] = true
		}
		key := ""
		for k, u := range used {
			if u {
				key += FaultKind(k).String() + ","
			}
		}
		subsets[key] = true
	}
	if len(subsets) < 10 {
		t.Fatalf("30 swarm seeds used only %d distinct kind subsets", len(subsets))
	}
}

func TestParsePlanRefusesBadInput(t *testing.T) {
	good := "felixsim-plan v1\nseed 1\nnodes 3\nduration_ns 10\n"
	for _, tc := range []struct{ text, want string }{
		{"", "empty"},
		{"plan v0\n", "want header"},
		{"felixsim-plan v1\nnodes 3\nduration_ns 10\n", "no seed line"},
		{good + "seed 2\n", "second seed"},
		{good + "fault at=1 kind=explode\n", "fault kind \"explode\""},
		{good + "fault at=1 kind=kill node=3\n", "outside [0, 3)"},
		{good + "fault at=5 kind=pause\nfault at=4 kind=pause\n", "before the previous"},
		{good + "fault kind=pause\n", "at= and kind= are required"},
		{good + "fault at=1 kind=pause at=2\n", "given twice"},
		{good + "fault at=1 kind=loss value=2000000\n", "outside [0, 1e6]"},
		{good + "fault at=1 kind=partition node=1 peer=1\n", "and itself"},
		{good + "param B 1\n", "use [a-z0-9_]+"},
		{good + "param b 1\nparam a 1\n", "unique and sorted"},
		{good + "bogus\n", "line kind"},
		{good + "fault at=x kind=pause\n", "at=\"x\""},
	} {
		_, err := ParsePlan(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParsePlan(%q) = %v, want an error containing %q", tc.text, err, tc.want)
		}
	}
}

func FuzzParsePlan(f *testing.F) {
	p, _ := Generate(Knobs{Seed: 1, Nodes: 3, DurationNs: 1e9, FaultGapMeanNs: 1e8})
	f.Add(p.String())
	f.Add("felixsim-plan v1\nseed 1\nnodes 3\nduration_ns 10\nfault at=1 kind=bridge node=1 mask=0x1\n")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := ParsePlan(text)
		if err != nil {
			return
		}
		q, err := ParsePlan(p.String())
		if err != nil || q.String() != p.String() {
			t.Fatalf("accepted plan does not round-trip: %v\n%s", err, p)
		}
	})
}
