package detcheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Finding is one violation of the determinism rules.
type Finding struct {
	Pos  token.Position
	Rule string
	Text string
}

// String renders the finding as file:line: rule: text.
func (f Finding) String() string { return fmt.Sprintf("%s: %s: %s", f.Pos, f.Rule, f.Text) }

// bannedImports may not be imported at all on the simulated path.
var bannedImports = map[string]string{
	"crypto/rand":  "crypto/rand reads OS entropy; use the run's seeded stream",
	"hash/maphash": "hash/maphash is seeded at random per process",
	"os":           "the OS lives behind vfs (vfs/os.go); simulated code must not touch it",
	"syscall":      "the OS lives behind vfs (vfs/os.go); simulated code must not touch it",
	"io/ioutil":    "the OS lives behind vfs (vfs/os.go); simulated code must not touch it",
}

// bannedTime are time package functions that read or wait on the wall clock.
var bannedTime = map[string]bool{"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
	"AfterFunc": true, "NewTimer": true, "NewTicker": true, "Tick": true}

// allowedRand are the math/rand (and v2) names that do not touch the global
// generator: constructors and types of explicitly seeded generators.
var allowedRand = map[string]bool{"New": true, "NewSource": true, "NewZipf": true, "NewPCG": true, "NewChaCha8": true,
	"Rand": true, "Source": true, "Source64": true, "Zipf": true, "PCG": true, "ChaCha8": true}

// sortFuncs take the slice to sort as their first argument.
var sortFuncs = map[string]bool{"sort.Strings": true, "sort.Ints": true, "sort.Float64s": true, "sort.Slice": true,
	"sort.SliceStable": true, "slices.Sort": true, "slices.SortFunc": true, "slices.SortStableFunc": true}

// CheckDir checks the non-test .go files directly inside dir as one package.
// A directory without Go files yields no findings.
func CheckDir(dir string) ([]Finding, error) {
	fset, files, err := parseDir(dir)
	if err != nil {
		return nil, err
	}
	return CheckFiles(fset, files), nil
}

// parseDir parses the non-test .go files directly inside dir, in name order.
func parseDir(dir string) (*token.FileSet, []*ast.File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("detcheck: read %s: %w", dir, err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, fmt.Errorf("detcheck: parse: %w", err)
		}
		files = append(files, f)
	}
	return fset, files, nil
}

// CheckFiles checks parsed files of one package.
func CheckFiles(fset *token.FileSet, files []*ast.File) []Finding {
	c := &checker{fset: fset, mapNames: map[string]bool{}}
	c.info = typeCheck(fset, files)
	for _, f := range files {
		c.collectMapNames(f)
	}
	for _, f := range files {
		c.file(f)
	}
	sortFindings(c.findings)
	return c.findings
}

// sortFindings orders findings by file, then line, then column.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i].Pos, fs[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// typeCheck type-checks the package with every import replaced by an empty
// package: local types resolve exactly, imported ones become invalid (and
// the name heuristic takes over for them). Errors are expected and ignored.
func typeCheck(fset *token.FileSet, files []*ast.File) *types.Info {
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: fakeImporter{}, Error: func(error) {}}
	conf.Check("detcheck", fset, files, info) //nolint:errcheck // errors are expected; see above
	return info
}

type fakeImporter struct{}

func (fakeImporter) Import(path string) (*types.Package, error) {
	name := path[strings.LastIndex(path, "/")+1:]
	if strings.HasPrefix(name, "v") && len(name) > 1 && name[1] >= '0' && name[1] <= '9' {
		name = filepath.Base(filepath.Dir(path))
	}
	p := types.NewPackage(path, name)
	p.MarkComplete()
	return p, nil
}

type checker struct {
	fset     *token.FileSet
	info     *types.Info
	mapNames map[string]bool // identifiers and fields declared or assigned with a map type
	findings []Finding
	comments map[int]string // line -> det:ok reason ("" if the marker has none) in the current file
}

func (c *checker) report(n ast.Node, rule, format string, args ...any) {
	pos := c.fset.Position(n.Pos())
	if reason, ok := markerFor(c.comments, pos.Line); ok {
		if strings.TrimSpace(reason) == "" {
			c.findings = append(c.findings, Finding{Pos: pos, Rule: "det:ok", Text: "a det:ok marker must give its reason"})
		}
		return
	}
	c.findings = append(c.findings, Finding{Pos: pos, Rule: rule, Text: fmt.Sprintf(format, args...)})
}

func (c *checker) file(f *ast.File) {
	c.comments = okMarkers(c.fset, f)
	imports := c.imports(f)
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok {
			ast.Inspect(d, func(n ast.Node) bool { c.node(n, imports, nil); return true })
			continue
		}
		sorted := sortedSlices(fn)
		ast.Inspect(fn, func(n ast.Node) bool { c.node(n, imports, sorted); return true })
	}
}

// imports reports banned imports and returns local name -> import path.
func (c *checker) imports(f *ast.File) map[string]string {
	names := map[string]string{}
	for _, spec := range f.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		if why, banned := bannedImports[path]; banned {
			c.report(spec, "import", "%s: %s", path, why)
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if path == "math/rand/v2" {
			name = "rand"
		}
		if spec.Name != nil {
			name = spec.Name.Name
		}
		names[name] = path
	}
	return names
}

func (c *checker) node(n ast.Node, imports map[string]string, sorted map[string]bool) {
	switch n := n.(type) {
	case *ast.GoStmt:
		c.report(n, "go", "go statement: one simulation is one goroutine")
	case *ast.SelectStmt:
		c.report(n, "select", "select statement: no channels on the simulated path")
	case *ast.ChanType:
		c.report(n, "chan", "channel type: no channels on the simulated path")
	case *ast.SendStmt:
		c.report(n, "chan", "channel send: no channels on the simulated path")
	case *ast.UnaryExpr:
		if n.Op == token.ARROW {
			c.report(n, "chan", "channel receive: no channels on the simulated path")
		}
	case *ast.SelectorExpr:
		c.selector(n, imports)
	case *ast.RangeStmt:
		c.rangeStmt(n, sorted)
	}
}

func (c *checker) selector(n *ast.SelectorExpr, imports map[string]string) {
	id, ok := n.X.(*ast.Ident)
	if !ok {
		return
	}
	switch imports[id.Name] {
	case "time":
		if bannedTime[n.Sel.Name] {
			c.report(n, "time", "time.%s reads or waits on the wall clock; use the node's Env clock and timers", n.Sel.Name)
		}
	case "math/rand", "math/rand/v2":
		if !allowedRand[n.Sel.Name] {
			c.report(n, "rand", "%s.%s uses the global generator; draw from the run's seeded stream", imports[id.Name], n.Sel.Name)
		}
	}
}
