package detcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// simulatedPath lists the module's simulated-path packages (each with its
// subpackages). vfs is the OS boundary and is not on the list; logstore may
// reach the OS only through vfs.
var simulatedPath = []string{"statemachine", "node", "sim", "properties", "tla", "logstore"}

func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// TestSimulatedPathIsDeterministic runs the check over every simulated-path
// package that exists; packages not written yet are skipped silently.
func TestSimulatedPathIsDeterministic(t *testing.T) {
	root := moduleRoot(t)
	var lines []string
	for _, pkg := range simulatedPath {
		findings, err := CheckTree(filepath.Join(root, pkg))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range findings {
			rel, _ := filepath.Rel(root, f.Pos.Filename)
			f.Pos.Filename = rel
			lines = append(lines, f.String())
		}
	}
	if len(lines) > 0 {
		t.Fatalf("%d determinism violations on the simulated path (fix, or mark //det:ok <reason>):\n%s", len(lines), strings.Join(lines, "\n"))
	}
}
