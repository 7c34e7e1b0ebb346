package tla

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// tlaForbiddenImports are packages the mirror must not import: clocks,
// ambient randomness, I/O and concurrency. unsafe is allowed for one use,
// reading State's bytes for its fingerprint (state.go).
var tlaForbiddenImports = map[string]string{
	"time":         "wall clock",
	"math/rand":    "global randomness",
	"math/rand/v2": "global randomness",
	"crypto/rand":  "ambient randomness",
	"hash/maphash": "per-process random seed",
	"os":           "I/O",
	"net":          "I/O",
	"sync":         "concurrency",
}

// scanMirrorSource lists the determinism violations in one source file.
func scanMirrorSource(name string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if why, bad := tlaForbiddenImports[path]; bad {
			out = append(out, fset.Position(imp.Pos()).String()+": imports "+path+" ("+why+")")
		}
		if strings.HasPrefix(path, "github.com/felixsim/felixsim/") && path != "github.com/felixsim/felixsim/properties" {
			out = append(out, fset.Position(imp.Pos()).String()+": imports "+path+" (tla imports only properties)")
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		what := ""
		switch n.(type) {
		case *ast.GoStmt:
			what = "go statement"
		case *ast.SelectStmt:
			what = "select statement"
		case *ast.ChanType:
			what = "channel type"
		}
		if what != "" {
			out = append(out, fset.Position(n.Pos()).String()+": "+what)
		}
		return true
	})
	return out, nil
}

func TestMirrorSourcesAreDeterministic(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	scanned := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		bad, err := scanMirrorSource(name, src)
		if err != nil {
			t.Fatal(err)
		}
		if len(bad) > 0 {
			t.Fatalf("determinism violations:\n%s", strings.Join(bad, "\n"))
		}
		scanned++
	}
	if scanned < 8 {
		t.Fatalf("scanned only %d sources: the scan is not looking where the code is", scanned)
	}
}

func TestMirrorScanCatchesViolations(t *testing.T) {
	src := "package tla\nimport (\n\t\"time\"\n\t\"github.com/felixsim/felixsim/sim\"\n)\nfunc f() { c := make(chan int); go func() {}(); select {}; _ = time.Now(); _ = sim.X; _ = c }\n"
	bad, err := scanMirrorSource("planted.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(bad, "\n")
	for _, want := range []string{"imports time", "imports github.com/felixsim/felixsim/sim", "go statement", "select statement", "channel type"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("scan missed %q; found:\n%s", want, joined)
		}
	}
}

// TestExploreIsDeterministic: two explorations give the same counts and
// the same counterexample, step for step.
func TestExploreIsDeterministic(t *testing.T) {
	cfg, err := Select("", "SplitRecords")
	if err != nil {
		t.Fatal(err)
	}
	a, err := Explore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Explore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ra, rb := NewReport(a, 0), NewReport(b, 0)
	var ja, jb strings.Builder
	if err := ra.WriteJSON(&ja); err != nil {
		t.Fatal(err)
	}
	if err := rb.WriteJSON(&jb); err != nil {
		t.Fatal(err)
	}
	if ja.String() != jb.String() {
		t.Fatalf("two explorations differ:\n%s\n%s", ja.String(), jb.String())
	}
}
