package faultplan

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim/prng"
	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/sim/world/worldtest"
)

// faultTableFile is the one file a fault kind lives in.
const faultTableFile = "faultkinds.go"

// TestAddingAFaultKindTouchesOneFile is the acceptance for "fault kinds as
// one table": adding a kind is an entry in faultkinds.go plus its tests.
// Three checks hold it:
//   - no non-test Go file of the module but faultkinds.go names a fault
//     kind constant (so no switch or comparison on a kind is left in the
//     printer, parser, validator, generator, applier, runner or cmd);
//   - every row of the table is complete (see checkFaultTable);
//   - a kind added to the table alone (below, pausepair: pause a node and
//     its peer) is parsed, printed, validated, drawn, listed and applied.
func TestAddingAFaultKindTouchesOneFile(t *testing.T) {
	if err := scanForKindNames("../.."); err != nil {
		t.Fatal(err)
	}
	if err := checkFaultTable(); err != nil {
		t.Fatal(err)
	}
	pausePair := addPausePair(t)
	checkAddedKind(t, pausePair)
}

// kindConstNames reads the FaultKind constants declared in faultkinds.go.
func kindConstNames() ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), faultTableFile, nil, 0)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for i, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if i == 0 && (vs.Type == nil || vs.Type.(*ast.Ident).Name != "FaultKind") {
				break
			}
			for _, n := range vs.Names {
				names = append(names, n.Name)
			}
		}
	}
	if len(names) != len(faultKinds) {
		return nil, errorString("found " + strings.Join(names, ",") + ": not one constant per table row")
	}
	return names, nil
}

type errorString string

func (e errorString) Error() string { return string(e) }

// scanForKindNames walks the module from root and fails on any non-test Go
// file other than sim/faultplan/faultkinds.go that names a fault kind constant.
func scanForKindNames(root string) error {
	names, err := kindConstNames()
	if err != nil {
		return err
	}
	isKind := map[string]bool{}
	for _, n := range names[1:] { // faultInvalid, the zero row, is no kind
		isKind[n] = true
	}
	self, err := filepath.Abs(faultTableFile)
	if err != nil {
		return err
	}
	var found []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if abs, _ := filepath.Abs(path); abs == self {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && isKind[id.Name] {
				found = append(found, path+": "+id.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		return err
	}
	if len(found) > 0 {
		return errorString("fault kinds named outside " + faultTableFile + " (move the per-kind logic into its table entry):\n" + strings.Join(found, "\n"))
	}
	return nil
}

var (
	kindNameRe  = regexp.MustCompile(`^[a-z]+$`)
	fieldKeyRe  = regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)
	v1OnlyOnce  = "maps two fields to v1 column "
	unitSuffix  = map[*fieldUnit]string{&unitNs: "_ns", &unitPpm: "_ppm", &unitOps: "_ops", &unitRecords: "_records"}
	namedByUnit = map[*fieldUnit]bool{&unitNode: true, &unitMask: true, &unitFlag: true, &unitCrashModel: true, &unitMoment: true}
)

// checkFaultTable checks every row and field of the table: a kind has a
// unique lower-case name, a one-line doc and an apply; it maps at most one
// field to each v1 column; every field it lists is drawn (non-zero in some
// of 300 draws) and its partner, if any, validates without a role; every field has a unique key naming its unit last (a node
// id, mask or flag is named by what it is), a known unit and a doc; and
// every field is used by some kind.
func checkFaultTable() error {
	names := map[string]bool{}
	used := make([]bool, faultFieldCount)
	for _, k := range AllFaultKinds() {
		spec := &faultKinds[k]
		switch {
		case !kindNameRe.MatchString(spec.name) || names[spec.name]:
			return errorString("kind " + spec.name + ": name not [a-z]+ or not unique")
		case spec.doc == "" || strings.Contains(spec.doc, "\n"):
			return errorString("kind " + spec.name + ": doc missing or longer than a line")
		case spec.effect == "" || strings.Contains(spec.effect, "\n"):
			return errorString("kind " + spec.name + ": effect missing or longer than a line")
		case spec.apply == nil:
			return errorString("kind " + spec.name + ": no apply")
		case spec.shape == shapeInvalid || spec.shape > ShapeSpan:
			return errorString("kind " + spec.name + ": no shape")
		}
		names[spec.name] = true
		var cols [v1ColumnCount]int
		for _, id := range spec.fields {
			used[id] = true
			if c := faultFields[id].col; c != colNone {
				if cols[c]++; cols[c] > 1 {
					return errorString("kind " + spec.name + " " + v1OnlyOnce + v1ColumnKeys[c])
				}
			}
		}
		if err := checkDrawn(k); err != nil {
			return err
		}
	}
	keys := map[string]bool{}
	for id := faultFieldID(0); id < faultFieldCount; id++ {
		fld := &faultFields[id]
		switch {
		case !fieldKeyRe.MatchString(fld.key) || keys[fld.key] || fld.key == "role" || fld.key == "at_ns" || fld.key == "kind":
			return errorString("field " + fld.key + ": key not lower_snake or not unique")
		case fld.doc == "" || fld.unit == nil || fld.get == nil || fld.set == nil:
			return errorString("field " + fld.key + ": doc, unit or accessors missing")
		case !namedByUnit[fld.unit] && !strings.HasSuffix(fld.key, unitSuffix[fld.unit]):
			return errorString("field " + fld.key + ": key does not end with its unit " + fld.unit.name)
		case unitSuffix[fld.unit] == "" && !namedByUnit[fld.unit]:
			return errorString("field " + fld.key + ": unknown unit " + fld.unit.name)
		case !used[id]:
			return errorString("field " + fld.key + ": no kind uses it")
		}
		keys[fld.key] = true
	}
	return nil
}

// checkDrawn draws kind k 300 times on 4 nodes; every field it lists must
// come out non-zero at least once, and every draw must validate.
func checkDrawn(k FaultKind) error {
	r := prng.New(uint64(k))
	seen := make([]bool, faultFieldCount)
	targets := []int{0, 1, 2, 3}
	for i := 0; i < 300; i++ {
		f := drawFault(r, int64(i)*msNs, k, targets, Knobs{})
		if err := f.validate(len(targets)); err != nil {
			return err
		}
		if pair := faultKinds[k].pair; pair != nil {
			if p := pair(r, f, targets, 1e9); p.validate(len(targets)) != nil || p.Role != "" || f.Role != "" {
				return errorString("kind " + k.String() + ": partner " + p.String() + " of " + f.String() + " does not validate or has a role")
			}
		}
		for _, id := range faultKinds[k].fields {
			seen[id] = seen[id] || faultFields[id].get(&f) != 0
		}
	}
	for _, id := range faultKinds[k].fields {
		if !seen[id] {
			return errorString("kind " + k.String() + ": field " + faultFields[id].key + " is never drawn")
		}
	}
	return nil
}

// addPausePair appends a kind to the table for the test's duration: the
// whole of what adding a kind takes.
func addPausePair(t *testing.T) FaultKind {
	saved := faultKinds
	t.Cleanup(func() { faultKinds = saved })
	faultKinds = append(faultKinds[:len(faultKinds):len(faultKinds)], faultKindSpec{
		name: "pausepair", doc: "pause node and peer; they resume after dur_ns",
		effect: "a message reached one of them while paused",
		fields: []faultFieldID{fieldNode, fieldPeer, fieldDurNs},
		draw: func(r *prng.Rand, f *FaultEvent, targets []int) {
			drawPeer(r, f, targets)
			f.DurNs = r.Int63nRange(msNs, 100*msNs)
		},
		check: checkPeerIsOther,
		apply: func(w *world.World, f FaultEvent) { w.Pause(f.Node, f.DurNs); w.Pause(f.Peer, f.DurNs) },
	})
	return FaultKind(len(faultKinds) - 1)
}

// checkAddedKind runs the added kind through every generic path.
func checkAddedKind(t *testing.T, k FaultKind) {
	if got, err := ParseFaultKind("pausepair"); err != nil || got != k {
		t.Fatalf("ParseFaultKind(pausepair) = %v, %v", got, err)
	}
	if !strings.Contains(FaultTable(), "pausepair    pause node and peer") {
		t.Fatalf("FaultTable lacks the added kind:\n%s", FaultTable())
	}
	p, err := Generate(Knobs{Seed: 3, Nodes: 3, DurationNs: 1e9, FaultGapMeanNs: 1e8, Kinds: []FaultKind{k}})
	if err != nil || len(p.Faults) == 0 {
		t.Fatalf("Generate: %v, %d faults", err, len(p.Faults))
	}
	q, err := ParsePlan(p.String())
	if err != nil || q.String() != p.String() {
		t.Fatalf("added kind does not round-trip: %v\n%s", err, p)
	}
	if !strings.Contains(p.String(), "kind=pausepair node=") || !strings.Contains(p.String(), " peer=") {
		t.Fatalf("printed plan lacks the kind's fields:\n%s", p)
	}
	bad := "felixsim-plan v2\nseed 1\nnodes 3\nduration_ns 9\nfault at_ns=1 kind=pausepair node=1 peer=1\n"
	if _, err := ParsePlan(bad); err == nil || !strings.Contains(err.Error(), "and itself") {
		t.Fatalf("the added kind's check did not run: %v", err)
	}
	w, _ := worldtest.ProbeWorld(t, 1, 3, worldtest.FixedLink, nil)
	one := &Plan{Nodes: 3, Faults: []FaultEvent{{AtNs: 1_000_000, Kind: k, Node: 0, Peer: 2, DurNs: 5_000_000}}}
	if err := ApplyPlan(w, one); err != nil {
		t.Fatal(err)
	}
	w.RunFor(2_000_000)
	if w.Up(0) || !w.Up(1) || w.Up(2) {
		t.Fatalf("after pausepair 0,2: up = %v %v %v, want false true false", w.Up(0), w.Up(1), w.Up(2))
	}
	w.RunFor(10_000_000)
	if !w.Up(0) || !w.Up(2) {
		t.Fatal("pausepair did not resume after dur_ns")
	}
}

// TestFaultTableCheckHasTeeth: the table check and the source scan fail on
// a planted incomplete row, a badly named field and a kind named outside
// the table file.
func TestFaultTableCheckHasTeeth(t *testing.T) {
	saved, savedFields := faultKinds, faultFields
	t.Cleanup(func() { faultKinds, faultFields = saved, savedFields })
	plant := func(edit func()) error {
		faultKinds = append([]faultKindSpec(nil), saved...)
		faultFields = savedFields
		edit()
		return checkFaultTable()
	}
	for _, tc := range []struct {
		name string
		edit func()
		want string
	}{
		{"no apply", func() { faultKinds[FaultKill].apply = nil }, "kind kill: no apply"},
		{"no doc", func() { faultKinds[FaultLoss].doc = "" }, "kind loss: doc missing"},
		{"no effect", func() { faultKinds[FaultLoss].effect = "" }, "kind loss: effect missing"},
		{"duplicate name", func() { faultKinds[FaultLoss].name = "kill" }, "not unique"},
		{"undrawn field", func() { faultKinds[FaultPause].draw = nil }, "field dur_ns is never drawn"},
		{"two value columns", func() { faultKinds[FaultLoss].fields = []faultFieldID{fieldChancePpm, fieldLatencyMaxNs} }, v1OnlyOnce + "value"},
		{"unit not last", func() { faultFields[fieldDurNs].key = "dur" }, "does not end with its unit ns"},
		{"unused field", func() {
			faultKinds[FaultClockDrift].fields, faultKinds[FaultClockDrift].draw = []faultFieldID{fieldNode}, nil
		}, "field drift_ppm: no kind uses it"},
	} {
		if err := plant(tc.edit); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: checkFaultTable = %v, want %q", tc.name, err, tc.want)
		}
	}
	dir := t.TempDir()
	planted := "package x\n\nfunc f(k int) bool { return k == FaultKill }\n"
	if err := os.WriteFile(filepath.Join(dir, "planted.go"), []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := scanForKindNames(dir); err == nil || !strings.Contains(err.Error(), "planted.go: FaultKill") {
		t.Fatalf("source scan missed a kind named outside the table: %v", err)
	}
}
