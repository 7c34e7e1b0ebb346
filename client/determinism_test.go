package client

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// bannedImports are sources of nondeterminism or I/O that the client and
// wire packages (both on the simulator's path) must not use outside tests.
var bannedImports = map[string]string{
	"time":         "wall clock: time enters as nowNs",
	"math/rand":    "global randomness",
	"math/rand/v2": "global randomness",
	"crypto/rand":  "ambient randomness",
	"hash/maphash": "per-process random seed",
	"os":           "I/O",
	"net":          "I/O",
	"sync":         "concurrency: one goroutine drives the client",
}

// TestSourcesStayDeterministic parses the non-test sources of client and
// wire and fails on a banned import, a go statement, a select or a channel.
func TestSourcesStayDeterministic(t *testing.T) {
	for _, dir := range []string{".", "../wire"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no sources in %s: %v", dir, err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			for _, v := range violations(t, path) {
				t.Errorf("%s", v)
			}
		}
	}
}

func violations(t *testing.T, path string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatalf("parsing %s: %v", path, err)
	}
	var out []string
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if why, banned := bannedImports[p]; banned {
			out = append(out, fset.Position(imp.Pos()).String()+": imports "+p+" ("+why+")")
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.GoStmt:
			out = append(out, fset.Position(n.Pos()).String()+": go statement")
		case *ast.SelectStmt:
			out = append(out, fset.Position(n.Pos()).String()+": select statement")
		case *ast.ChanType:
			out = append(out, fset.Position(n.Pos()).String()+": channel type")
		}
		return true
	})
	return out
}
