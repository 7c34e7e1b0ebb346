package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryCommandHasHelpWithAnExample: `felixsim <command> --help` (and
// -h) exits 0 and prints the synopsis, at least one example and the flags.
func TestEveryCommandHasHelpWithAnExample(t *testing.T) {
	for _, c := range commands {
		for _, flag := range []string{"--help", "-h"} {
			var out, errOut bytes.Buffer
			code := dispatch([]string{c.name, flag}, &out, &errOut)
			o := out.String()
			if code != exitPass || !strings.HasPrefix(o, "usage: felixsim "+c.name) || !regexp.MustCompile(`(?m)^  felixsim `+c.name+` .*\[exit \d\]$`).MatchString(o) ||
				!strings.Contains(o, "flags:") || errOut.Len() != 0 {
				t.Errorf("%s %s: exit %d, stdout:\n%s\nstderr: %s", c.name, flag, code, o, errOut.String())
			}
		}
	}
}

// TestBadUsageIsOneLine: for every command, a bad flag, a bad value or a
// refused option prints one line naming the problem and pointing to
// --help, and exits 2.
func TestBadUsageIsOneLine(t *testing.T) {
	cases := [][]string{
		{"check-model", "--bogus"}, {"check-model", "--variant", "Half"}, {"check-model", "extra"},
		{"run", "--bogus"}, {"run", "--seed", "-1"},
		{"sweep", "--bogus"}, {"sweep"}, {"sweep", "--seeds", "5..1"}, {"sweep", "--seeds", "0..4"}, {"sweep", "--seeds", "1.."},
		{"sweep", "--seeds", "1..4", "--jobs", "0"}, {"sweep", "--seeds", "1..4", "--shard", "3/2"},
		{"sweep", "--seeds", "1..4", "--defects", "nope"}, {"sweep", "--seeds", "1..4", "--faults", "kil"},
		{"sweep", "--seeds", "1..4", "--repeat-fraction", "2"}, {"sweep", "--seeds", "1..4", "--duration", "0s"},
		{"sweep", "--seeds", "1..4", "stray"}, {"merge"}, {"merge", "--bogus", "x.json"}, {"merge", "/nonexistent/r.json"},
		{"replay"}, {"replay", "--bogus"}, {"replay", "--plan", "/nonexistent/plan"}, {"replay", "/nonexistent/dir"},
	}
	for _, args := range cases {
		var out, errOut bytes.Buffer
		code := dispatch(args, &out, &errOut)
		e := errOut.String()
		want := "'felixsim " + args[0] + " --help'"
		if code != exitUsage || strings.Count(e, "\n") != 1 || !strings.HasPrefix(e, "felixsim "+args[0]+": ") || !strings.Contains(e, want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line pointing to %s", args, code, e, want)
		}
		if strings.Contains(e, "goroutine") || strings.Contains(e, "-jobs int") {
			t.Errorf("%q: a stack or the flag list on stderr: %q", args, e)
		}
	}
}

// shardReport is a one-shard report of seeds 1..4 (seeds 1 and 3 of 2
// shards), with seed 3 failing and seed 1 vacuous.
const shardReport = `{
  "format": "felixsim-sweep-report/2",
  "seeds": "1..4",
  "shard": "1/2",
  "duration": "2s",
  "faults": "all",
  "defects": "ack-before-quorum",
  "repeat_fraction": 0.05,
  "seeds_run": 2,
  "seeds_repeated": 0,
  "last_seed": 3,
  "complete": true,
  "failures": [
    {"seed":3,"invariant":"CommittedNeverLost","family":"safety","exit_code":1,"message":"lost","reproduce":"felixsim run --seed 3 --duration 2000ms --defects ack-before-quorum"}
  ],
  "vacuous": 1,
  "vacuous_seeds": [
    {"seed":1,"reason":"2 acknowledged writes, under the floor of 10"}
  ],
  "coverage_seeds": 2,
  "coverage": {
    "fault.kill.effect": 0,
    "fault.kill.fired": 3,
    "raft.failover": 5
  },
  "seconds": 1
}
`

// TestMergeCommand: two shard files merge into a report listing the
// failing seed (exit 1); a truncated or corrupt file is refused with the
// file and line (exit 2); a missing shard is refused.
func TestMergeCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	s1 := write("s1.json", shardReport)
	i, j := strings.Index(shardReport, `"failures": [`), strings.Index(shardReport, "  ],\n")+len("  ],\n")
	noFailures := shardReport[:i] + "\"failures\": [],\n" + shardReport[j:]
	s2 := write("s2.json", strings.NewReplacer(`"shard": "1/2"`, `"shard": "2/2"`, `"last_seed": 3`, `"last_seed": 4`,
		`{"seed":1,"reason"`, `{"seed":2,"reason"`, `"fault.kill.fired": 3`, `"fault.kill.fired": 4`).Replace(noFailures))
	var out, errOut bytes.Buffer
	junit := filepath.Join(dir, "merged.xml")
	code := dispatch([]string{"merge", s1, "--junit", junit, s2}, &out, &errOut)
	o := out.String()
	if code != exitSafety || !strings.Contains(o, "4 seeds run") || !strings.Contains(o, "felixsim run --seed 3 --duration 2000ms") ||
		!strings.Contains(o, "vacuous: 2 of 4 seeds (50.0%)") || !regexp.MustCompile(`(?m)^2 +2 acknowledged writes`).MatchString(o) ||
		!regexp.MustCompile(`(?m)^kill +7 +0$`).MatchString(o) || !regexp.MustCompile(`(?m)^raft\.failover +10$`).MatchString(o) ||
		!strings.Contains(o, "never hit: fault.kill.effect\n") {
		t.Fatalf("merge: exit %d\n%s\n%s", code, o, errOut.String())
	}
	if x, err := os.ReadFile(junit); err != nil || !strings.Contains(string(x), `<testcase classname="felixsim.sweep" name="seed 3">`) ||
		!strings.Contains(string(x), `<property name="coverage.fault.kill.fired" value="7"></property>`) ||
		!strings.Contains(string(x), `name="seed 2 (vacuous)"`) {
		t.Fatalf("JUnit: %v\n%s", err, x)
	}
	cut := write("cut.json", shardReport[:strings.Index(shardReport, `"complete"`)])
	bad := write("bad.json", strings.Replace(shardReport, `"seeds_run": 2`, `"seeds_run": 7`, 1))
	for path, want := range map[string]string{cut: cut + ":12: report refused: truncated", bad: bad + ":9: report refused: 7 seeds run",
		s1: "shard(s) [2] of 2 missing"} {
		out.Reset()
		errOut.Reset()
		if code := dispatch([]string{"merge", path}, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), want) {
			t.Errorf("merge %s: exit %d, stderr %q; want 2 and %q", path, code, errOut.String(), want)
		}
	}
}
