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
// that loosening it to let a violation through fails here: every allowed
// import is a known package, the graph has no cycle, nothing may import cmd,
// only sim's own subpackages and cmd may import sim, node and client reach
// the world only through the sim/simapi and sim/prng leaves, and the pure
// packages import no felixsim package above them.
func TestLayersTableKeepsDesignArrows(t *testing.T) {
	for _, rel := range tablePackages() {
		for _, to := range layers[rel].may {
			if _, ok := layers[to]; !ok {
				t.Errorf("%s may import %s, which is not in the table", rel, to)
			}
			if to == rel {
				t.Errorf("%s may import itself", rel)
			}
			if strings.HasPrefix(to, "cmd/") {
				t.Errorf("%s may import %s: nothing imports cmd", rel, to)
			}
			if to == "sim" && !strings.HasPrefix(rel, "sim/") && !strings.HasPrefix(rel, "cmd/") {
				t.Errorf("%s may import sim: nothing below sim imports it", rel)
			}
			if (rel == "node" || rel == "client") && strings.HasPrefix(to, "sim") && to != "sim/simapi" && to != "sim/prng" {
				t.Errorf("%s may import %s: it sees the world only through sim/simapi and sim/prng", rel, to)
			}
		}
		if err := cycleFrom(rel, nil); err != "" {
			t.Errorf("import cycle in the table: %s", err)
		}
	}
	pure := map[string][]string{"felix": nil, "statemachine": {"felix"}, "properties": {"felix"}, "vfs": nil, "sim/prng": nil,
		"wire": {"felix"}, "tla": {"felix", "properties", "modeltrace"}, "sim/detcheck": nil, "sim/sweep": {"properties", "coverage", "sim/verdict"}, "modeltrace": nil, "sim/verdict": {"properties"}}
	for rel, want := range pure {
		if got := strings.Join(layers[rel].may, ","); got != strings.Join(want, ",") {
			t.Errorf("%s may import [%s]; its doc.go allows only [%s]", rel, got, strings.Join(want, ","))
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
