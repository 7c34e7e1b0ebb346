package detcheck

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func moduleRoot(t testing.TB) string {
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

// TestModuleKeepsItsRules runs the layering check and the determinism rules
// over the real tree: every package where the table says it may import,
// every simulated package free of clocks, randomness, goroutines, channels
// and unsorted map ranges.
func TestModuleKeepsItsRules(t *testing.T) {
	root := moduleRoot(t)
	findings, err := CheckModule(root)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, f := range findings {
		rel, _ := filepath.Rel(root, f.Pos.Filename)
		f.Pos.Filename = rel
		lines = append(lines, f.String())
	}
	if len(lines) > 0 {
		t.Fatalf("%d violations (fix; for a determinism rule a justified exception is marked //det:ok <reason>; a layering change is an edit of layers.go and the package's doc.go):\n%s",
			len(lines), strings.Join(lines, "\n"))
	}
}

// TestLayersTableMatchesTree: every package in the table exists in the tree
// (a stale entry would be a rule that checks nothing), so the module check
// above covered each of them.
func TestLayersTableMatchesTree(t *testing.T) {
	root := moduleRoot(t)
	var pkgs []string
	for rel := range layers {
		pkgs = append(pkgs, rel)
	}
	sort.Strings(pkgs)
	for _, rel := range pkgs {
		_, files, err := parseDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil || len(files) == 0 {
			t.Errorf("layers.go names %s, but it has no Go sources in the tree (%v)", rel, err)
		}
	}
}
