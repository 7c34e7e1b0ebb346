package detcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// FuzzModulePath: any go.mod content gives a path without spaces or quotes,
// or an error; never a panic.
func FuzzModulePath(f *testing.F) {
	for _, s := range []string{"module example.com/fx\n", "module \"example.com/q\"\ngo 1.26\n", "go 1.26\n", "module\n", "module \"\"\n", "// module x\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parseModulePath(data)
		if err != nil {
			if p != "" {
				t.Fatalf("error %v with a path %q", err, p)
			}
			return
		}
		if p == "" || strings.ContainsAny(p, " \t\r\n\"`") {
			t.Fatalf("module path %q from %q", p, data)
		}
	})
}

// FuzzCheckSource: whatever source the Go parser accepts, both checks run
// without panicking and report positions inside the file.
func FuzzCheckSource(f *testing.F) {
	f.Add(planted)
	f.Add(fixtureModule["client/client.go"])
	f.Add(fixtureModule["wire/codec.go"])
	f.Add("package p\nfunc f(m map[int]int) { for k, v := range (m) { if k < v { v = k } } }\n")
	f.Fuzz(func(t *testing.T, src string) {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "fuzz.go", src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return
		}
		lines := strings.Count(src, "\n") + 1
		for _, rel := range []string{"client", "statemachine", "not-in-table"} {
			for _, fd := range checkLayers(fset, []*ast.File{file}, "example.com/fx", rel) {
				if fd.Pos.Line < 1 || fd.Pos.Line > lines {
					t.Fatalf("finding %s outside the file's %d lines", fd, lines)
				}
			}
		}
		for _, fd := range CheckFiles(fset, []*ast.File{file}) {
			if fd.Pos.Line < 1 || fd.Pos.Line > lines {
				t.Fatalf("finding %s outside the file's %d lines", fd, lines)
			}
		}
	})
}
