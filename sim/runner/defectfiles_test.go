package runner

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/node"
)

// moduleRootRel is the module root from this package's directory.
const moduleRootRel = "../.."

// defectField names the node.Defects field dn's setter switches on.
func defectField(t *testing.T, set func(d *node.Defects) *bool) string {
	var d node.Defects
	*set(&d) = true
	v := reflect.ValueOf(d)
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).Bool() {
			return v.Type().Field(i).Name
		}
	}
	t.Fatal("a defect's setter sets no node.Defects field")
	return ""
}

// readsOf counts, per non-test Go file of dir, the uses of the identifier
// gate (as a name or a selector), leaving out where it is declared (a
// struct field or a constant).
func readsOf(dir, gate string) (map[string]int, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			return nil, err
		}
		declared := map[*ast.Ident]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Field:
				for _, id := range n.Names {
					declared[id] = true
				}
			case *ast.ValueSpec:
				for _, id := range n.Names {
					declared[id] = true
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == gate && !declared[id] {
				out[name]++
			}
			return true
		})
	}
	return out, nil
}

// checkSwitchFile reports why file (module-relative, under root) is not
// the one place its package reads the switch gate: it reads it nowhere,
// or another non-test file of the package reads it too.
func checkSwitchFile(root, file, gate string) error {
	reads, err := readsOf(filepath.Join(root, filepath.Dir(file)), gate)
	if err != nil {
		return err
	}
	if reads[filepath.Base(file)] == 0 {
		return fmt.Errorf("%s does not read the switch %s", file, gate)
	}
	var others []string
	for name := range reads {
		if name != filepath.Base(file) {
			others = append(others, filepath.Join(filepath.Dir(file), name))
		}
	}
	sort.Strings(others)
	if len(others) > 0 {
		return fmt.Errorf("the switch %s is read in %s besides %s: a package keeps its defect switches in one file", gate, strings.Join(others, ", "), file)
	}
	return nil
}

// TestDefectTableNamesTheSwitchFiles: for every planted defect, the file
// the table names (what `felixsim help run` prints) reads its switch, and
// no other file of that package does; node's switch of every defect,
// where node reads one at all, is in node/defects.go.
func TestDefectTableNamesTheSwitchFiles(t *testing.T) {
	for _, dn := range defectNames {
		field := defectField(t, dn.set)
		gate := dn.gate
		if gate == "" {
			gate = field
		}
		if err := checkSwitchFile(moduleRootRel, dn.file, gate); err != nil {
			t.Errorf("%s: %v", dn.name, err)
		}
		reads, err := readsOf(filepath.Join(moduleRootRel, "node"), field)
		if err != nil {
			t.Fatal(err)
		}
		for file := range reads {
			if file != filepath.Base(nodeDefectsFile) {
				t.Errorf("%s: node reads the switch %s in node/%s, not in %s", dn.name, field, file, nodeDefectsFile)
			}
		}
	}
}

// TestSwitchFileCheckHasTeeth: the check fails on a table row naming a
// file that does not read the switch, and on a package reading one switch
// in two files.
func TestSwitchFileCheckHasTeeth(t *testing.T) {
	if err := checkSwitchFile(moduleRootRel, "node/requests.go", "PartialApply"); err == nil || !strings.Contains(err.Error(), "does not read the switch PartialApply") {
		t.Errorf("a row naming node/requests.go for partial-apply: %v", err)
	}
	root := t.TempDir()
	pkg := filepath.Join(root, "p")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"defects.go": "package p\n\ntype Defects struct{ Early bool }\n\nfunc early(d Defects) bool { return d.Early }\n",
		"main.go":    "package p\n\nfunc run(d Defects) int {\n\tif d.Early {\n\t\treturn 1\n\t}\n\treturn 0\n}\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(pkg, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := checkSwitchFile(root, "p/defects.go", "Early"); err == nil || !strings.Contains(err.Error(), "read in p/main.go besides p/defects.go") {
		t.Errorf("a switch read in two files: %v", err)
	}
	if err := os.Remove(filepath.Join(pkg, "main.go")); err != nil {
		t.Fatal(err)
	}
	if err := checkSwitchFile(root, "p/defects.go", "Early"); err != nil {
		t.Errorf("a switch read in one file: %v", err)
	}
}

// TestDefectTableIsDocumented: docs/cli.md lists every planted defect with
// the file that holds its switch, as the table says.
func TestDefectTableIsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(moduleRootRel, "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dn := range defectNames {
		row := fmt.Sprintf("| `%s` | `%s` |", dn.name, dn.file)
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/cli.md lacks the row %q", row)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(DefectTable()), "\n") {
		name, file, ok := strings.Cut(line, " (")
		if !ok || !strings.HasSuffix(file, ")") || !strings.Contains(string(doc), "| `"+name+"` | `"+strings.TrimSuffix(file, ")")+"` |") {
			t.Errorf("DefectTable line %q is not a documented defect and file", line)
		}
	}
}
