package scenario

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim/runner"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of the scenario files")

// Dir is where the scenario library lives, relative to this package.
const dir = "../../testdata/scenarios"

func scenarioFiles(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files in %s: %v", dir, err)
	}
	return files
}

func load(t *testing.T, path string) *File {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(filepath.Base(path), string(text))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestScenarios runs every scenario file, a subtest each; -rewrite
// updates the expected output in place.
func TestScenarios(t *testing.T) {
	for _, path := range scenarioFiles(t) {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			f := load(t, path)
			out := Run(f, Options{})
			if *rewrite {
				if err := os.WriteFile(path, []byte(Format(f, out)), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if d := Diff(f, out); d != "" {
				t.Errorf("scenario output differs:\n%s", d)
			}
		})
	}
}

// TestDefectScenariosNeedTheirDefect: each defect-*.txt scenario shows a
// violation with its defect on (TestScenarios) and none with it off.
func TestDefectScenariosNeedTheirDefect(t *testing.T) {
	n := 0
	for _, path := range scenarioFiles(t) {
		if !strings.HasPrefix(filepath.Base(path), "defect-") {
			continue
		}
		n++
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			f := load(t, path)
			defect := strings.TrimSuffix(strings.TrimPrefix(f.Name, "defect-"), ".txt")
			if !strings.Contains(f.Commands[0].Text, "--defect "+defect) {
				t.Fatalf("%s: its first command does not plant defect %s", f.Name, defect)
			}
			on, off := false, false
			out := Run(f, Options{DefectsOff: true})
			for i, c := range f.Commands {
				if c.Args[0] != "check" {
					continue
				}
				on = on || strings.Contains(c.Expected, "violation ")
				off = off || strings.Contains(out[i], "violation ")
			}
			if !on {
				t.Errorf("%s: no check shows a violation with the defect on", f.Name)
			}
			if off {
				t.Errorf("%s: a check shows a violation with the defect off:\n%s", f.Name, Diff(f, out))
			}
		})
	}
	if n == 0 {
		t.Fatal("no defect scenarios")
	}
}

// TestUnknownCommandIsAParseError: a command the language does not have
// is refused by the parser with the file, the line and its name, not run.
func TestUnknownCommandIsAParseError(t *testing.T) {
	_, err := Parse("x.txt", "# purpose\n\nbrokers 3\n----\nok\n\nrename order-events\n----\nok\n")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 7 || !strings.Contains(pe.Msg, `unknown command "rename"`) {
		t.Fatalf("got %v, want a parse error at x.txt:7 naming the unknown command", err)
	}
}

// TestScenarioWithoutACommandIsRefused: a file with its purpose and no
// command checks nothing, so it is refused, never "ok (0 commands)".
func TestScenarioWithoutACommandIsRefused(t *testing.T) {
	_, err := Parse("x.txt", "# purpose\n\n# only comments\n")
	var pe *ParseError
	if !errors.As(err, &pe) || !strings.Contains(pe.Msg, "no command") {
		t.Fatalf("got %v, want a parse error saying the file has no command", err)
	}
}

// TestEveryDefectHasAScenario: each planted defect of the registry has
// its defect scenario, defect-NAME.txt.
func TestEveryDefectHasAScenario(t *testing.T) {
	for _, name := range strings.Split(runner.DefectNames(), ",") {
		if _, err := os.Stat(filepath.Join(dir, "defect-"+name+".txt")); err != nil {
			t.Errorf("defect %s has no scenario: %v", name, err)
		}
	}
}

// TestFileHeaderVersion: a file opening with this version's header line
// reads (the line is not its purpose), one without it reads as v1, one of
// another version is refused at line 1, and Format writes the header.
func TestFileHeaderVersion(t *testing.T) {
	body := "# Purpose.\n\nbrokers 3\n----\nok\n"
	for _, text := range []string{FileHeader + "\n" + body, body} {
		f, err := Parse("f.txt", text)
		if err != nil || f.Purpose != "Purpose." {
			t.Fatalf("%q: %v, purpose %q", text, err, f.Purpose)
		}
		if got := Format(f, nil); got != FileHeader+"\n"+body {
			t.Fatalf("Format wrote %q", got)
		}
	}
	_, err := Parse("f.txt", "# felixsim-scenario v2\n"+body)
	if err == nil || !strings.HasPrefix(err.Error(), "f.txt:1: ") || !strings.Contains(err.Error(), FileHeader) {
		t.Fatalf("a v2 file: %v", err)
	}
}
