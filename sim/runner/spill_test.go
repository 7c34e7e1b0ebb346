package runner

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/properties"
)

// TestSpilledHistoryJudgedAlike: a run whose history goes to disk 64
// operations at a time reaches the same verdicts, counts and trace hash
// as the same run holding it whole, clean and with planted defects the
// end checks catch from the history (a duplicate landing, a stale read),
// and its history reads back byte for byte.
func TestSpilledHistoryJudgedAlike(t *testing.T) {
	for _, c := range []struct {
		seed   uint64
		defect string
	}{{1, ""}, {2, "commit-as-two-records"}, {3, "stale-read"}, {4, "commit-if-at-proposal"}} {
		o := Options{Seed: c.seed, DurationNs: 10e9, KeepHistory: true}
		if c.defect != "" {
			d, err := ParseDefects(c.defect)
			if err != nil {
				t.Fatal(err)
			}
			o.Defects = d
		}
		held, err := Run(o)
		if err != nil {
			t.Fatal(err)
		}
		o.historyHeldOps = 64
		spilled, err := Run(o)
		if err != nil {
			t.Fatal(err)
		}
		if c.defect != "" && held.OK() {
			t.Fatalf("seed %d with %s passed: the comparison would not cover a failing verdict", c.seed, c.defect)
		}
		if held.TraceHash != spilled.TraceHash || held.Ops != spilled.Ops {
			t.Fatalf("seed %d: hash %x ops %+v held, %x %+v spilled", c.seed, held.TraceHash, held.Ops, spilled.TraceHash, spilled.Ops)
		}
		if a, b := violationLines(held), violationLines(spilled); a != b {
			t.Fatalf("seed %d: verdicts differ:\nheld:\n%s\nspilled:\n%s", c.seed, a, b)
		}
		var a, b bytes.Buffer
		if err := properties.EncodeHistory(&a, held.History); err != nil {
			t.Fatal(err)
		}
		if err := properties.EncodeHistory(&b, spilled.History); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("seed %d: histories differ (%d vs %d bytes)", c.seed, a.Len(), b.Len())
		}
	}
}

// violationLines is every violation of r, name and message, one a line.
func violationLines(r *Result) string {
	var b bytes.Buffer
	for _, v := range r.Violations {
		b.WriteString(string(v.Invariant) + ": " + v.Message + "\n")
	}
	return b.String()
}

// TestLostHistoryIsNoVerdict: when the history cannot go to disk (its
// scratch directory is gone) the run refuses a verdict, naming why,
// rather than judge part of the history.
func TestLostHistoryIsNoVerdict(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "gone"))
	res, err := Run(Options{Seed: 1, DurationNs: 5e9, historyHeldOps: 64})
	if err == nil || res != nil || !strings.Contains(err.Error(), "gone") || !strings.Contains(err.Error(), "history") {
		t.Fatalf("run with no room for its history: result %v, error %v", res, err)
	}
}
