package faultplan

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
		if f, ok := genFault(t, at, nodes); ok {
			p.Faults = append(p.Faults, f)
		}
	}
	clients := rapid.SliceOfDistinct(rapid.IntRange(0, nodes-1), func(c int) int { return c }).Draw(t, "opsClients")
	sortInts(clients)
	for _, c := range clients {
		slots := rapid.SliceOf(rapid.IntRange(0, 200)).Draw(t, "slots")
		p.Ops = append(p.Ops, ClientOps{Client: c, Keep: OpRangesOf(slots)})
	}
	return p
}

func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// genFault draws a fault of any kind with each of its fields anywhere in
// the field's range, from the table; ok is false when the kind's own check
// refuses the draw (a partition of a node with itself).
func genFault(t *rapid.T, at int64, nodes int) (FaultEvent, bool) {
	f := FaultEvent{AtNs: at, Kind: FaultKind(rapid.IntRange(1, len(faultKinds)-1).Draw(t, "kind"))}
	for _, id := range faultKinds[f.Kind].fields {
		fld := &faultFields[id]
		var v int64
		switch fld.unit {
		case &unitNode:
			v = int64(rapid.IntRange(0, nodes-1).Draw(t, fld.key))
		case &unitMask:
			v = int64(rapid.Uint64Range(0, 1<<uint(nodes)-1).Draw(t, fld.key))
		case &unitFlag:
			v = rapid.Int64Range(0, 1).Draw(t, fld.key)
		default:
			v = rapid.Int64Range(fld.min, fld.max).Draw(t, fld.key)
		}
		fld.set(&f, v)
	}
	if f.Kind.targetsNode() && rapid.Bool().Draw(t, "byRole") {
		f.Role = rapid.StringMatching(`[a-z0-9_]{1,8}`).Draw(t, "role")
	}
	return f, f.validate(nodes) == nil
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
		used := make([]bool, len(faultKinds))
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

// TestGenerateRefusesUnknownKind: a kind outside the table is an error, not
// a panic.
func TestGenerateRefusesUnknownKind(t *testing.T) {
	for _, k := range []FaultKind{faultInvalid, FaultKind(len(faultKinds)), 255} {
		if _, err := Generate(Knobs{Nodes: 3, DurationNs: 1e9, FaultGapMeanNs: 1e8, Kinds: []FaultKind{k}}); err == nil || !strings.Contains(err.Error(), "is unknown") {
			t.Errorf("Generate with kind %d = %v", k, err)
		}
	}
}

func TestParsePlanRefusesBadInput(t *testing.T) {
	good := "felixsim-plan v2\nseed 1\nnodes 3\nduration_ns 10\n"
	v1 := "felixsim-plan v1\nseed 1\nnodes 3\nduration_ns 10\n"
	for _, tc := range []struct{ text, want string }{
		{"", "empty"},
		{"plan v0\n", "want header"},
		{"felixsim-plan v2\nnodes 3\nduration_ns 10\n", "no seed line"},
		{"felixsim-plan v4\n", "want header \"felixsim-plan v3\", \"felixsim-plan v2\" or the older \"felixsim-plan v1\""},
		{"felixsim-plan v3\n", "no seed line"},
		{good + "seed 2\n", "second seed"},
		{good + "fault at_ns=1 kind=explode\n", "fault kind \"explode\""},
		{good + "fault at_ns=1 kind=kill node=3\n", "kill node=3 refused: outside [0, 3)"},
		{good + "fault at_ns=5 kind=pause\nfault at_ns=4 kind=pause\n", "before the previous"},
		{good + "fault kind=pause\n", "at_ns= and kind= are required"},
		{good + "fault at_ns=1 kind=pause at_ns=2\n", "given twice"},
		{good + "fault at_ns=1 kind=loss chance_ppm=2000000\n", "chance_ppm=2000000 refused: outside [0, 1000000]"},
		{good + "fault at_ns=1 kind=clockdrift drift_ppm=-600000\n", "outside [-500000, 500000]"},
		{good + "fault at_ns=1 kind=pause dur_ns=-1\n", "dur_ns=-1 refused: below 0"},
		{good + "fault at_ns=1 kind=partition node=1 peer=1\n", "and itself"},
		{good + "fault at_ns=1 kind=split mask=0x8\n", "names nodes beyond 3"},
		{good + "fault at_ns=1 kind=kill torn=2\n", "want true or false"},
		{good + "fault at_ns=1 kind=crashat disk_ops=1 crash_model=melted\n", "want lost, torn or kept"},
		{good + "fault at_ns=1 kind=crashat disk_ops=0 crash_model=torn\n", "disk_ops=0 refused: outside [1, 1048576]"},
		{good + "fault at_ns=1 kind=crashat disk_ops=1\n", "crash_model=invalid refused: not one of lost, torn, kept"},
		{good + "fault at_ns=1 kind=loss value=5\n", "kind loss takes at_ns, kind, chance_ppm"},
		{good + "fault at_ns=1 kind=loss dur_ns=5\n", "kind loss takes at_ns, kind, chance_ppm"},
		{good + "fault at_ns=1 kind=healnet role=leader\n", "a role needs a kind with a node"},
		{good + "fault at_ns=1 at=1 kind=pause\n", "kind pause takes at_ns, kind, node, dur_ns, role"},
		{good + "param B 1\n", "use [a-z0-9_]+"},
		{good + "param b 1\nparam a 1\n", "unique and sorted"},
		{good + "bogus\n", "line kind"},
		{good + "ops client=3 keep=1\n", "ops for client 3 refused: outside [0, 3)"},
		{good + "ops client=1 keep=1\nops client=0 keep=1\n", "unique and sorted"},
		{good + "ops client=1 keep=4-2\n", "range 4-2 refused: want 0 <= first <= last"},
		{good + "ops client=1 keep=1-3,4\n", "range 4-4 refused: must start after 4"},
		{good + "ops client=1 keep=5,2\n", "range 2-2 refused"},
		{good + "ops client=1 keep=-1\n", "want a slot or first-last"},
		{good + "ops client=1 keep=1-x\n", "want a slot or first-last"},
		{good + "ops client=1\n", "ops wants client=N keep=LIST"},
		{good + "ops keep=1 client=1\n", "want client=N keep=LIST"},
		{good + "ops client=x keep=none\n", "ops client \"x\" refused"},
		{good + "fault at_ns=x kind=pause\n", "at_ns=\"x\""},
		{v1 + "fault at_ns=1 kind=pause\n", "at= and kind= are required"},
		{v1 + "fault at=1 kind=loss value=2000000\n", "outside [0, 1000000]"},
		{v1 + "fault at=1 kind=kill value=2\n", "want true or false"},
		{v1 + "fault at=1 kind=healnet value=7\n", "kind healnet has no field in v1 column value"},
		{v1 + "fault at=1 kind=split node=1 mask=0x2\n", "kind split has no field in v1 column node"},
		{v1 + "fault at=1 kind=loss chance_ppm=5\n", "at, kind, node, peer, mask, value, dur, role"},
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
	f.Add("felixsim-plan v2\nseed 1\nnodes 3\nduration_ns 10\nfault at_ns=1 kind=kill node=2 torn=true dur_ns=5 role=leader\n")
	f.Add("felixsim-plan v2\nseed 1\nnodes 3\nduration_ns 10\nops client=0 keep=none\nops client=2 keep=0-3,7,9-12\n")
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

// TestGenerateCapsLastingDamage: with LastingNodesMax, lasting faults hit
// at most that many distinct nodes, never by role, and a dropped one takes
// its partner with it (no fault is left at a dropped fault's time but those
// of kept faults); without the cap they spread over every target.
func TestGenerateCapsLastingDamage(t *testing.T) {
	lasting := []FaultKind{}
	for _, k := range AllFaultKinds() {
		if k.Lasting() {
			lasting = append(lasting, k)
		}
	}
	knobs := Knobs{Seed: 4, Nodes: 5, DurationNs: 20e9, FaultGapMeanNs: 2e8, Kinds: lasting, Roles: []string{"leader"}}
	hit := func(p *Plan) map[int]bool {
		nodes := map[int]bool{}
		for _, f := range p.Faults {
			if f.Kind.Lasting() {
				nodes[f.Node] = true
				if f.Role != "" {
					t.Fatalf("lasting fault aimed at a role: %s", f)
				}
			}
		}
		return nodes
	}
	free, err := Generate(knobs)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(hit(free)); n < 3 {
		t.Fatalf("uncapped plan hits %d nodes, want them spread", n)
	}
	knobs.LastingNodesMax = 2
	capped, err := Generate(knobs)
	if err != nil {
		t.Fatal(err)
	}
	nodes := hit(capped)
	if len(nodes) != 2 {
		t.Fatalf("capped plan hits nodes %v, want 2", nodes)
	}
	for _, f := range capped.Faults {
		if !nodes[f.Node] {
			t.Fatalf("a partner of a dropped fault stayed: %s", f)
		}
	}
}

// TestGenerateLeavesProgressWindows: a calm opens every window, and no
// drawn fault (nor a partner) falls inside.
func TestGenerateLeavesProgressWindows(t *testing.T) {
	k := Knobs{Seed: 9, Nodes: 3, DurationNs: 35e9, FaultGapMeanNs: 2e8, ProgressEveryNs: 10e9, ProgressWindowNs: 2e9}
	p, err := Generate(k)
	if err != nil {
		t.Fatal(err)
	}
	calms := map[int64]bool{}
	for _, f := range p.Faults {
		if f.Kind == progressWindowKind && f.AtNs%k.ProgressEveryNs == 0 {
			calms[f.AtNs] = true
			continue
		}
		if k.inProgressWindow(f.AtNs) {
			t.Errorf("fault %s inside a progress window", f)
		}
	}
	if len(calms) != 3 || !calms[10e9] || !calms[20e9] || !calms[30e9] {
		t.Fatalf("calm faults at %v, want 10, 20 and 30 s", calms)
	}
	k.ProgressEveryNs = 0
	q, err := Generate(k)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range q.Faults {
		if k.inProgressWindow(f.AtNs) || (f.Kind == progressWindowKind && f.AtNs%10e9 == 0) {
			t.Fatalf("no windows asked, yet %s", f)
		}
	}
}
