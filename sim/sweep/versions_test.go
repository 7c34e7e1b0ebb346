package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim/verdict"
)

// TestReadsEveryReportVersion: a checked-in report of each version the
// reader accepts reads, with its version on its first line: /2 written by
// felixsim at 9e2c8bb, /3 at 1a07996 and /4 by this tree (each `felixsim
// sweep --seeds 1..4 --duration 1s --defects commit-as-two-records --json
// --jobs 2`: every seed fails, safety). A /3 report's model states are
// three-member codes, which /4 kept. A /2 report's verdict is computed from its
// failures; it reads as one shard.
func TestReadsEveryReportVersion(t *testing.T) {
	for _, c := range []struct {
		file, first string
	}{{"report-2.json", "{"}, {"report-3.json", `{"format": "felixsim-sweep-report/3",`}, {"report-4.json", `{"format": "felixsim-sweep-report/4",`}} {
		path := filepath.Join("testdata", "versions", c.file)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if line, _, _ := strings.Cut(string(b), "\n"); line != c.first {
			t.Errorf("%s: line 1 is %q, want %q", c.file, line, c.first)
		}
		r, err := ReadReport(c.file, strings.NewReader(string(b)))
		if err != nil || r.SeedsRun != 4 || len(r.Failures) != 4 || r.Verdict() != verdict.Safety || r.Shards != 1 {
			t.Errorf("%s: %v; %+v", c.file, err, r)
		}
	}
}
