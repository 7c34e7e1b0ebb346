package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// builtBinary builds felixsim once per test process into a temporary
// directory and returns that directory (to put first on PATH).
var builtBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "felixsim-bin-")
	if err != nil {
		return "", err
	}
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", filepath.Join(dir, "felixsim"), ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", errors.New(string(out))
	}
	return dir, nil
})

// shell runs line with sh in dir, felixsim (this tree's) first on PATH,
// and returns its exit code and output.
func shell(t *testing.T, dir, line string) (int, string) {
	t.Helper()
	bin, err := builtBinary()
	if err != nil {
		t.Fatalf("building felixsim: %v", err)
	}
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String()
	}
	t.Fatalf("%s: %v", line, err)
	return 0, ""
}

// checkoutCopy makes a directory that looks like a felixsim checkout's
// root to the examples: a copy of testdata/scenarios.
func checkoutCopy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("..", "..", "testdata", "scenarios")
	dst := filepath.Join(dir, "testdata", "scenarios")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := os.ReadDir(src)
	if err != nil || len(files) == 0 {
		t.Fatalf("testdata/scenarios: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(src, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// shownExample is an example as --help prints it.
type shownExample struct {
	after, cmd string
	exit       int
}

var exampleLine = regexp.MustCompile(`^  (felixsim .*?)\s+# .* \[exit (\d)\]$`)

// shownExamples reads the examples block of a command's --help output:
// a line with "# ... [exit N]" is a command, a bare one before it what
// runs first.
func shownExamples(t *testing.T, help string) []shownExample {
	t.Helper()
	_, block, ok := strings.Cut(help, "examples (in order, from a felixsim checkout's root; [exit code]):\n")
	if !ok {
		t.Fatalf("no examples block:\n%s", help)
	}
	block, _, _ = strings.Cut(block, "\n\n")
	var out []shownExample
	after := ""
	for _, line := range strings.Split(block, "\n") {
		if m := exampleLine.FindStringSubmatch(line); m != nil {
			code, _ := strconv.Atoi(m[2])
			out = append(out, shownExample{after: after, cmd: m[1], exit: code})
			after = ""
			continue
		}
		if !strings.HasPrefix(line, "  felixsim ") || after != "" {
			t.Fatalf("example line %q is neither a command with its exit code nor one line run first", line)
		}
		after = strings.TrimSpace(line)
	}
	return out
}

// TestHelpExamplesRun: every command's --help examples (and `scenario
// from`'s) run as shown, in order, from a copy of a checkout's root with
// this tree's felixsim on PATH, and each ends with the exit code its help
// documents; a line shown to run first must not be refused as usage.
func TestHelpExamplesRun(t *testing.T) {
	names := [][]string{{"scenario", "from"}}
	for _, c := range commands {
		names = append(names, []string{c.name})
	}
	for _, name := range names {
		var out, errOut bytes.Buffer
		if code := dispatch(append(append([]string(nil), name...), "--help"), &out, &errOut); code != exitPass {
			t.Fatalf("%v --help: exit %d", name, code)
		}
		examples := shownExamples(t, out.String())
		if len(examples) == 0 {
			t.Fatalf("%v: no example", name)
		}
		dir := checkoutCopy(t)
		for _, e := range examples {
			if e.after != "" {
				if code, text := shell(t, dir, e.after); code == exitUsage {
					t.Fatalf("%v: %q (run first) refused as usage:\n%s", name, e.after, text)
				}
			}
			if code, text := shell(t, dir, e.cmd); code != e.exit {
				t.Errorf("%v: %q exited %d, its help says %d:\n%s", name, e.cmd, code, e.exit, lastLines(text, 15))
			}
		}
	}
}

// TestReproduceLinesPaste: the reproduce line a failing run prints, and
// each a failing sweep prints, pasted into a shell with felixsim on PATH,
// reproduces the run: the same trace hash and exit code.
func TestReproduceLinesPaste(t *testing.T) {
	dir := t.TempDir()
	code, text := shell(t, dir, "felixsim run --seed 3 --duration 10s --fault-gap 700ms --clients 5 --liveness-budget 25s --defects commit-as-two-records")
	line := lineAfter(t, text, "reproduce: ")
	hash := lineAfter(t, text, "trace hash ")
	again, text2 := shell(t, dir, line)
	if again != code || lineAfter(t, text2, "trace hash ") != hash {
		t.Fatalf("%q: exit %d (first %d), hash %s (first %s)", line, again, code, lineAfter(t, text2, "trace hash "), hash)
	}
	_, sweep := shell(t, dir, "felixsim sweep --seeds 1..2 --duration 2s --jobs 1 --defects commit-as-two-records")
	rows := regexp.MustCompile(`(?m)^\d+\s+\S+\s+\S+\s+(felixsim run .*)$`).FindAllStringSubmatch(sweep, -1)
	if len(rows) != 2 {
		t.Fatalf("sweep: want 2 failing rows:\n%s", sweep)
	}
	for _, r := range rows {
		if code, text := shell(t, dir, r[1]); code != exitSafety {
			t.Errorf("%q: exit %d, want %d:\n%s", r[1], code, exitSafety, lastLines(text, 5))
		}
	}
}

// lineAfter is the rest of the first line of text starting with prefix.
func lineAfter(t *testing.T, text, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(l, prefix); ok {
			return rest
		}
	}
	t.Fatalf("no line starting %q in:\n%s", prefix, text)
	return ""
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// flagHelpLine is a numeric flag in a command's --help, with the range
// its usage states.
var flagHelpLine = regexp.MustCompile(`(?m)^  -([a-z-]+) (int|uint|duration|float)\n\s+.*\(([^()]+)\.\.([^()]+)\)( \(default [^()]*\))?$`)

// TestFlagRangesShownAndRefusedByName: every numeric flag of every
// command states its allowed range in --help, and a value just outside
// it is refused (exit 2) by a one-line error naming that flag and no
// other, before anything runs.
func TestFlagRangesShownAndRefusedByName(t *testing.T) {
	numeric := regexp.MustCompile(`(?m)^  -([a-z-]+) (int|uint|duration|float)$`)
	for _, c := range commands {
		var out, errOut bytes.Buffer
		dispatch([]string{c.name, "--help"}, &out, &errOut)
		help := out.String()
		ranged := map[string]bool{}
		for _, m := range flagHelpLine.FindAllStringSubmatch(help, -1) {
			ranged[m[1]] = true
			for _, v := range outside(t, m[2], m[3], m[4]) {
				args := append(minimalArgs(c.name), "--"+m[1], v)
				errOut.Reset()
				code := dispatch(args, &out, &errOut)
				e := errOut.String()
				if code != exitUsage || strings.Count(e, "\n") != 1 || !strings.Contains(e, "-"+m[1]) || otherFlagNamed(e, m[1]) {
					t.Errorf("%v: exit %d, stderr %q; want exit 2 naming --%s alone", args, code, e, m[1])
				}
			}
		}
		for _, m := range numeric.FindAllStringSubmatch(help, -1) {
			if !ranged[m[1]] {
				t.Errorf("%s --%s: its help states no allowed range", c.name, m[1])
			}
		}
	}
}

// outside lists values just outside [lo, hi] that the flag's type can
// still parse (none below 0 for uint, none above a uint64's maximum).
func outside(t *testing.T, kind, lo, hi string) []string {
	t.Helper()
	switch kind {
	case "int", "uint":
		l, err1 := strconv.ParseInt(lo, 10, 64)
		h, err2 := strconv.ParseUint(hi, 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("range %s..%s does not parse", lo, hi)
		}
		var out []string
		if kind == "int" || l > 0 {
			out = append(out, strconv.FormatInt(l-1, 10))
		}
		if h < 1<<62 {
			out = append(out, strconv.FormatUint(h+1, 10))
		}
		return out
	case "float":
		return []string{lo + "-1", hi + "1"} // not numbers: parse errors name the flag too
	}
	return []string{"-1ns", hi + "1ns"}
}

// minimalArgs are the arguments a command needs besides the flag under
// test to get as far as checking flag ranges.
func minimalArgs(name string) []string {
	switch name {
	case "sweep":
		return []string{name, "--seeds", "1..2"}
	case "run":
		return []string{name, "--seed", "1"}
	case "shrink":
		return []string{name, "--seed", "1", "--out", os.TempDir()}
	case "replay", "check-trace", "merge":
		return []string{name, "no-such-input"}
	}
	return []string{name}
}

// otherFlagNamed reports whether message names a flag besides name.
func otherFlagNamed(message, name string) bool {
	for _, m := range regexp.MustCompile(`--([a-z][a-z-]+)`).FindAllStringSubmatch(message, -1) {
		if m[1] != name && m[1] != "help" {
			return true
		}
	}
	return false
}
