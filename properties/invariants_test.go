package properties

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRegistryIsValid: the registry passes its own check (no duplicate
// names, valid families, one-line statements, a check each), and the check
// refuses each way an entry can be broken.
func TestRegistryIsValid(t *testing.T) {
	if err := checkRegistry(registry); err != nil {
		t.Fatal(err)
	}
	good := Invariant{Name: "A", Statement: "a holds", Family: FamilySafety, Checks: []string{"properties.A"}}
	for _, c := range []struct {
		name string
		bad  []Invariant
		want string
	}{
		{"duplicate", []Invariant{good, good}, "registered twice"},
		{"no name", []Invariant{{Statement: "x", Family: FamilySafety, Checks: []string{"x"}}}, "no name"},
		{"zero family", []Invariant{{Name: "A", Statement: "x", Checks: []string{"x"}}}, "invalid family 0"},
		{"family past the end", []Invariant{{Name: "A", Statement: "x", Family: familyEnd, Checks: []string{"x"}}}, "invalid family"},
		{"empty statement", []Invariant{{Name: "A", Family: FamilySafety, Checks: []string{"x"}}}, "one non-empty line"},
		{"two-line statement", []Invariant{{Name: "A", Statement: "x\ny", Family: FamilySafety, Checks: []string{"x"}}}, "one non-empty line"},
		{"no check", []Invariant{{Name: "A", Statement: "x", Family: FamilySafety}}, "names no check"},
	} {
		err := checkRegistry(c.bad)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: checkRegistry = %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// TestLookupInvariant: every listed name is found; an unregistered one is
// refused with its name in the error.
func TestLookupInvariant(t *testing.T) {
	for _, inv := range Invariants() {
		got, err := LookupInvariant(inv.Name)
		if err != nil || got.Name != inv.Name || got.Family != inv.Family {
			t.Fatalf("LookupInvariant(%s) = %+v, %v", string(inv.Name), got, err)
		}
	}
	for _, n := range []InvariantName{"", "Bogus", "MonotonicReads", "linearizableread"} {
		if _, err := LookupInvariant(n); err == nil || !strings.Contains(err.Error(), strconv.Quote(string(n))) {
			t.Errorf("LookupInvariant(%q) = %v, want a refusal naming it", string(n), err)
		}
	}
	if e := InvariantStateMatchesLog.Errorf("replica %s off by %d", "b1", 1); e.Error() != "StateMatchesLog: replica b1 off by 1" {
		t.Fatalf("Errorf = %q", e)
	}
	if Family(0).String() != "invalid" || FamilyLiveness.String() != "liveness" || Family(9).String() != "Family(9)" {
		t.Fatal("Family.String")
	}
}

// moduleRoot is the repository root, one level above this package.
const moduleRoot = ".."

// checkDirs says where the package a registry check names lives.
var checkDirs = map[string]string{"properties": ".", "tla": "../tla", "runner": "../sim/runner"}

// TestRegistryChecksExist: every check an entry names is a function (or
// method, as package.Type.method) declared in that package's sources.
func TestRegistryChecksExist(t *testing.T) {
	decls := map[string]bool{}
	for pkg, dir := range checkDirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					decls[pkg+"."+receiverPrefix(fd)+fd.Name.Name] = true
				}
			}
		}
	}
	if !decls["properties.CommittedNeverLost"] || !decls["tla.checker.committedNeverLost"] || decls["properties.NoSuchCheck"] {
		t.Fatalf("the declaration scan is broken: %d declarations", len(decls))
	}
	for _, inv := range Invariants() {
		for _, c := range inv.Checks {
			if !decls[c] {
				t.Errorf("%s names check %s, which no source declares", string(inv.Name), c)
			}
		}
	}
}

// receiverPrefix is "Type." for a method (pointer or not), "" for a function.
func receiverPrefix(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "."
	}
	return "?."
}

// literalExempt are string literals that spell a registered name but mean
// something else: file (slash-separated, from the module root) and name.
var literalExempt = map[[2]string]string{
	{"tla/actions.go", "Crash"}:       "the TLA+ action Crash (a broker restarts), not the invariant",
	{"tla/tracevalidate.go", "Crash"}: "the TLA+ action Crash that explains a Restart step, not the invariant",
}

// nameLiterals returns, for one Go source, each string literal that holds
// a registered invariant name as a whole word, as "line: name in literal".
func nameLiterals(path string, src []byte, names *regexp.Regexp, exempt func(name string) bool) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var hits []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		for _, m := range names.FindAllString(s, -1) {
			if !exempt(m) {
				hits = append(hits, fmt.Sprintf("%d: %s in %s", fset.Position(lit.Pos()).Line, m, lit.Value))
			}
		}
		return true
	})
	return hits, nil
}

// namesPattern matches any registered name as a whole identifier.
func namesPattern() *regexp.Regexp {
	var alts []string
	for _, inv := range Invariants() {
		alts = append(alts, regexp.QuoteMeta(string(inv.Name)))
	}
	return regexp.MustCompile(`\b(` + strings.Join(alts, "|") + `)\b`)
}

// TestNoInvariantNameLiteralOutsideRegistry: no non-test Go source but
// the registry spells an invariant's name in a string literal (the name
// constants and InvariantName.Errorf are the way to say it), so a name is
// written once. The scan itself is shown to catch a planted literal.
func TestNoInvariantNameLiteralOutsideRegistry(t *testing.T) {
	names := namesPattern()
	planted := []byte("package x\n\nimport \"fmt\"\n\nvar e = fmt.Errorf(\"CommittedNeverLost: lost\")\nvar n = \"MonotonicRead\"\nvar ok = \"Monotonic reads\"\n")
	hits, err := nameLiterals("planted.go", planted, names, func(string) bool { return false })
	if err != nil || len(hits) != 2 {
		t.Fatalf("planted source: hits %v, err %v; want the two literals on lines 5 and 6", hits, err)
	}
	scanned := 0
	err = filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != moduleRoot && (strings.HasPrefix(n, ".") || n == "testdata" || n == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, moduleRoot+string(filepath.Separator)))
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || rel == "properties/invariants.go" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		scanned++
		hits, err := nameLiterals(path, src, names, func(name string) bool { return literalExempt[[2]string{rel, name}] != "" })
		for _, h := range hits {
			t.Errorf("%s:%s: invariant name written as a string literal outside the registry", rel, h)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if scanned < 50 {
		t.Fatalf("scanned only %d Go files under %s: is the module root right?", scanned, moduleRoot)
	}
}
