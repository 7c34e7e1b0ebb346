package logstore

// The single-writer check: Commit is the only write path for the four
// tables and the store file. It parses the module's sources and fails if
//   - a logstore file writes the in-memory tables (assignment, ++/--,
//     delete) outside the *tables methods of tables.go, directly or
//     through a variable bound to the tables;
//   - anything but Store.install calls the tables' apply methods, or
//     anything but Commit and replay calls install;
//   - a logstore file outside the commit, create, recovery and rewrite
//     paths writes, truncates, renames or removes the store file (a
//     rewrite copies what Commit wrote; it adds nothing);
//   - a file of another package names the store file (FileName or
//     "logstore.wal"), which is how it would bypass Commit.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// tableFields are the selectors that reach the in-memory tables.
var tableFields = map[string]bool{"tab": true, "log": true, "state": true, "position": true, "outbox": true, "counts": true}

// allowedCalls says which functions (file:func) may call which method.
var allowedCalls = map[string][]string{
	"apply":       {"apply.go:install"},
	"applyState":  {"tables.go:apply", "tables.go:dropBefore"},
	"applyOutbox": {"tables.go:apply"},
	"install":     {"commit.go:Commit", "recover.go:replayTxn"},
	"f.Write":     {"commit.go:write", "store.go:create", "rewrite.go:writeRewrite", "recover.go:replayFile"},
	"f.Truncate":  {"recover.go:replayFile"},
	"f.Sync":      {"commit.go:commit", "store.go:create", "recover.go:replayFile", "rewrite.go:writeRewrite"},
	"fs.Create":   {"store.go:create", "rewrite.go:writeRewrite"},
	"fs.Remove":   {"rewrite.go:Rewrite", "rewrite.go:removeRewriteLeftover"},
	"fs.Rename":   {"rewrite.go:Rewrite"},
	"fs.SyncDir":  {"store.go:create", "rewrite.go:Rewrite", "rewrite.go:removeRewriteLeftover"},
}

// checkSingleWriter returns one line per violation in files (path relative
// to the module root -> source).
func checkSingleWriter(files map[string]string) []string {
	var bad []string
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if filepath.Dir(p) == "logstore" {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, p, files[p], 0)
			if err != nil {
				bad = append(bad, fmt.Sprintf("%s: does not parse: %v", p, err))
				continue
			}
			bad = append(bad, checkLogstoreFile(fset, filepath.Base(p), f)...)
			continue
		}
		if strings.Contains(files[p], `"`+FileName+`"`) || strings.Contains(files[p], "logstore.FileName") {
			bad = append(bad, fmt.Sprintf("%s: names the store file; only logstore.Commit writes it", p))
		}
	}
	return bad
}

func checkLogstoreFile(fset *token.FileSet, base string, f *ast.File) []string {
	var bad []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		where := base + ":" + fn.Name.Name
		tablesMethod := base == "tables.go" && fn.Recv != nil && recvType(fn) == "tables"
		tainted := map[string]bool{}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					if !tablesMethod && touchesTables(lhs, tainted) {
						bad = append(bad, fmt.Sprintf("%s (%s): writes a table outside tables.go", fset.Position(n.Pos()), where))
					}
					if i < len(n.Rhs) && touchesTables(n.Rhs[i], tainted) {
						if id, ok := lhs.(*ast.Ident); ok {
							tainted[id.Name] = true
						}
					}
				}
			case *ast.IncDecStmt:
				if !tablesMethod && touchesTables(n.X, tainted) {
					bad = append(bad, fmt.Sprintf("%s (%s): writes a table outside tables.go", fset.Position(n.Pos()), where))
				}
			case *ast.CallExpr:
				bad = append(bad, checkCall(fset, n, where, tablesMethod, tainted)...)
			}
			return true
		})
	}
	return bad
}

func checkCall(fset *token.FileSet, c *ast.CallExpr, where string, tablesMethod bool, tainted map[string]bool) []string {
	if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "delete" && len(c.Args) > 0 && !tablesMethod && touchesTables(c.Args[0], tainted) {
		return []string{fmt.Sprintf("%s (%s): deletes from a table outside tables.go", fset.Position(c.Pos()), where)}
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	name := sel.Sel.Name
	if inner, ok := sel.X.(*ast.SelectorExpr); ok && (inner.Sel.Name == "f" || inner.Sel.Name == "fs") {
		name = inner.Sel.Name + "." + name
	}
	allowed, watched := allowedCalls[name]
	if !watched {
		return nil
	}
	for _, a := range allowed {
		if a == where {
			return nil
		}
	}
	return []string{fmt.Sprintf("%s (%s): calls %s, which only %v may call", fset.Position(c.Pos()), where, name, allowed)}
}

func recvType(fn *ast.FuncDecl) string {
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// touchesTables reports whether e designates (part of) the tables: an
// index, selector or dereference chain rooted at a table field of the
// store's tables or at a variable bound to one. A value computed from the
// tables (a call such as len(m)) does not designate them.
func touchesTables(e ast.Expr, tainted map[string]bool) bool {
	for {
		switch x := e.(type) {
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.UnaryExpr:
			e = x.X
		case *ast.SelectorExpr:
			if tableFields[x.Sel.Name] && selectsFromStoreOrTables(x.X) {
				return true
			}
			e = x.X
		case *ast.Ident:
			return tainted[x.Name]
		default:
			return false
		}
	}
}

// selectsFromStoreOrTables is true for x.tab..., s.tab.log, t.log: the
// receiver names this package uses for *Store (s) and tables (t), or a
// .tab selector.
func selectsFromStoreOrTables(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.Ident:
		return x.Name == "s" || x.Name == "t"
	case *ast.SelectorExpr:
		return x.Sel.Name == "tab"
	}
	return false
}

// moduleSources reads every .go file of the module (root = ..).
func moduleSources(t *testing.T) map[string]string {
	files := map[string]string{}
	root := ".."
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestSingleWriter(t *testing.T) {
	files := moduleSources(t)
	n := 0
	for p := range files {
		if strings.HasPrefix(p, "logstore/") && !strings.HasSuffix(p, "_test.go") {
			n++
		}
	}
	if n < 8 {
		t.Fatalf("found only %d logstore source files: the walk is broken", n)
	}
	for _, v := range checkSingleWriter(files) {
		t.Error(v)
	}
}

// TestSingleWriterHasTeeth plants each kind of violation and requires the
// check to report it.
func TestSingleWriterHasTeeth(t *testing.T) {
	planted := map[string]string{
		"direct write in another logstore file": `package logstore
func (s *Store) sneak() { s.tab.counts.Log++ }`,
		"write through an alias": `package logstore
func (s *Store) sneak(k uint64) { m := s.tab.outbox[scopeX]; delete(m, k) }`,
		"second caller of install": `package logstore
func (s *Store) sneak(b *Batch) { s.install(b, nil) }`,
		"file write outside the commit path": `package logstore
func (s *Store) sneak(p []byte) { s.f.Write(p) }`,
		"another package opening the store file": `package node
import "github.com/felixsim/felixsim/logstore"
func sneak(fs vfs.FS) { fs.Open("n1/" + logstore.FileName) }`,
	}
	names := make([]string, 0, len(planted))
	for name := range planted {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		src := planted[name]
		path := "logstore/sneak.go"
		if strings.Contains(src, "package node") {
			path = "node/sneak.go"
		}
		if got := checkSingleWriter(map[string]string{path: src}); len(got) == 0 {
			t.Errorf("%s: not caught", name)
		} else {
			t.Logf("%s: %s", name, got[0])
		}
	}
}
