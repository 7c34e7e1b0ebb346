package detcheck

import (
	"sort"
	"strings"
	"testing"
)

func tablePackages() []string {
	var pkgs []string
	for rel := range layers {
		pkgs = append(pkgs, rel)
	}
	sort.Strings(pkgs)
	return pkgs
}

// TestLayersTableKeepsDesignArrows holds the table itself to DESIGN.md, so
// that loosening it to let a violation through fails here (arrowProblems)
// and the pure packages import no felixsim package above them.
func TestLayersTableKeepsDesignArrows(t *testing.T) {
	for _, p := range arrowProblems() {
		t.Error(p)
	}
	pure := map[string][]string{"felix": nil, "statemachine": {"felix"}, "properties": {"felix"}, "vfs": nil, "sim/prng": nil,
		"wire": {"felix"}, "tla": {"felix", "properties", "modeltrace"}, "sim/detcheck": nil, "sim/sweep": {"properties", "coverage", "sim/verdict"}, "modeltrace": nil, "sim/verdict": {"properties"}}
	for rel, want := range pure {
		if got := strings.Join(layers[rel].may, ","); got != strings.Join(want, ",") {
			t.Errorf("%s may import [%s]; its doc.go allows only [%s]", rel, got, strings.Join(want, ","))
		}
	}
}

// arrowProblems checks every entry of the table: it is on one floor, and
// every import it may make is a known package other than itself, on its
// floor or below (floors), not cmd, and under sim/ only for sim's own
// subpackages and cmd; and the graph has no cycle.
func arrowProblems() []string {
	var out []string
	for _, rel := range tablePackages() {
		if floorOf(rel) < 0 {
			out = append(out, rel+" is on no floor (layers.go floors)")
			continue
		}
		for _, to := range layers[rel].may {
			switch {
			case floorOf(to) < 0:
				out = append(out, rel+" may import "+to+", which is on no floor or not in the table")
			case to == rel:
				out = append(out, rel+" may import itself")
			case strings.HasPrefix(to, "cmd/"):
				out = append(out, rel+" may import "+to+": nothing imports cmd")
			case strings.HasPrefix(to, "sim/") && !strings.HasPrefix(rel, "sim/") && !strings.HasPrefix(rel, "cmd/"):
				out = append(out, rel+" may import "+to+": nothing below sim imports anything under sim/")
			case floorOf(to) > floorOf(rel):
				out = append(out, rel+" (floor "+floors[floorOf(rel)].name+") may import "+to+", a floor up ("+floors[floorOf(to)].name+")")
			}
		}
		if c := cycleFrom(rel, nil); c != "" {
			out = append(out, "import cycle in the table: "+c)
		}
	}
	return out
}

// brokerPackages are the broker: the code a real Felix deployment runs,
// which must depend on nothing of its simulator.
var brokerPackages = []string{"node", "logstore", "statemachine", "client", "wire"}

// TestBrokerImportsNothingOfTheSimulator: the table lets no broker package
// import anything under sim/, so the module check (TestModuleKeepsItsRules)
// fails on such an import in the tree (TestModuleCatchesPlantedViolations
// plants one in node and one in client).
func TestBrokerImportsNothingOfTheSimulator(t *testing.T) {
	for _, p := range brokerProblems() {
		t.Error(p)
	}
}

// brokerProblems lists each import under sim/ the table lets a broker
// package make, and each broker package on the world's floor or above.
func brokerProblems() []string {
	var out []string
	for _, rel := range brokerPackages {
		for _, to := range layers[rel].may {
			if to == "sim" || strings.HasPrefix(to, "sim/") {
				out = append(out, rel+" may import "+to+": the broker imports nothing of the simulator")
			}
		}
		if f := floorOf(rel); f < 0 || f >= floorOf("sim/world") {
			out = append(out, rel+" is not on a floor below the world's")
		}
	}
	return out
}

// TestTableChecksCatchAnArrowUp: a planted allowance for the world to
// import the fault plan fails the arrows check; one for node to import
// sim/simapi fails it and the broker check.
func TestTableChecksCatchAnArrowUp(t *testing.T) {
	for _, tc := range []struct {
		rel, to string
		check   func() []string
		want    string
	}{
		{"sim/world", "sim/faultplan", arrowProblems, "sim/world (floor world) may import sim/faultplan, a floor up (fault plan)"},
		{"node", "sim/simapi", arrowProblems, "node may import sim/simapi: nothing below sim imports anything under sim/"},
		{"node", "sim/simapi", brokerProblems, "node may import sim/simapi: the broker imports nothing of the simulator"},
	} {
		saved := layers[tc.rel]
		l := saved
		l.may = append(append([]string(nil), saved.may...), tc.to)
		layers[tc.rel] = l
		got := strings.Join(tc.check(), "\n")
		layers[tc.rel] = saved
		if !strings.Contains(got, tc.want) {
			t.Errorf("planted %s -> %s: problems %q, want %q", tc.rel, tc.to, got, tc.want)
		}
	}
}

// cycleFrom returns the path of a cycle reachable from rel, or "".
func cycleFrom(rel string, path []string) string {
	for i, p := range path {
		if p == rel {
			return strings.Join(append(path[i:], rel), " -> ")
		}
	}
	for _, to := range layers[rel].may {
		if c := cycleFrom(to, append(path, rel)); c != "" {
			return c
		}
	}
	return ""
}

// TestLayersTableDoesNotRepeatDeterminismBans: a simulated package's
// forbidden standard imports add to bannedImports, never repeat them, so
// one import line gets one finding.
func TestLayersTableDoesNotRepeatDeterminismBans(t *testing.T) {
	for _, rel := range tablePackages() {
		l := layers[rel]
		for path := range l.forbidStd {
			if !isStd(path) {
				t.Errorf("%s forbids %s, which is not a standard-library path", rel, path)
			}
			if _, dup := bannedImports[path]; dup && l.simulated {
				t.Errorf("%s forbids %s, which the determinism rules already ban", rel, path)
			}
		}
	}
}

func TestCycleFromFindsACycle(t *testing.T) {
	saved := layers["felix"]
	defer func() { layers["felix"] = saved }()
	l := saved
	l.may = []string{"wire"}
	layers["felix"] = l
	if c := cycleFrom("wire", nil); c != "wire -> felix -> wire" {
		t.Fatalf("a planted wire <-> felix cycle gave %q", c)
	}
}
