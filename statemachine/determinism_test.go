package statemachine

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

	"github.com/stretchr/testify/require"
)

// forbiddenImports are packages the pure state machine must not import:
// clocks, ambient randomness, I/O, and every other felixsim package.
var forbiddenImports = map[string]string{
	"time":          "wall clock",
	"math/rand":     "global randomness",
	"math/rand/v2":  "global randomness",
	"crypto/rand":   "ambient randomness",
	"hash/maphash":  "per-process random seed",
	"os":            "I/O",
	"io/fs":         "I/O",
	"net":           "I/O",
	"sync":          "concurrency",
	"unsafe":        "unchecked memory",
	"reflect":       "not needed by a pure state machine",
	"runtime":       "scheduler and environment",
	"path/filepath": "I/O paths",
}

// scanSource lists the determinism violations in one Go source file.
func scanSource(name string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if why, bad := forbiddenImports[path]; bad {
			out = append(out, fset.Position(imp.Pos()).String()+": imports "+path+" ("+why+")")
		}
		if strings.HasPrefix(path, "github.com/felixsim/felixsim/") {
			out = append(out, fset.Position(imp.Pos()).String()+": imports "+path+" (statemachine imports no other felixsim package)")
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
		case *ast.SendStmt:
			what = "channel send"
		}
		if what != "" {
			out = append(out, fset.Position(n.Pos()).String()+": "+what)
		}
		return true
	})
	return out, nil
}

func TestSourcesAreDeterministic(t *testing.T) {
	names, err := filepath.Glob("*.go")
	require.NoError(t, err)
	sort.Strings(names)
	scanned := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		bad, err := scanSource(name, src)
		require.NoError(t, err)
		require.Empty(t, bad, "determinism violations in %s", name)
		scanned++
	}
	require.Greater(t, scanned, 5, "the scan found too few sources to mean anything")
}

func TestScanSourceCatchesViolations(t *testing.T) {
	src := `package statemachine
import (
	"time"
	"github.com/felixsim/felixsim/wire"
)
func f() {
	c := make(chan int)
	go func() { c <- 1 }()
	select {}
	_ = time.Now()
	_ = wire.X
}
`
	bad, err := scanSource("planted.go", []byte(src))
	require.NoError(t, err)
	joined := strings.Join(bad, "\n")
	for _, want := range []string{"imports time", "imports github.com/felixsim/felixsim/wire", "go statement", "select statement", "channel type", "channel send"} {
		require.Contains(t, joined, want)
	}
}
