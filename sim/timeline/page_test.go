package timeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/felixsim/felixsim/sim/runner"

	"github.com/felixsim/felixsim/properties"
)

// TestPageSelfContained: the page loads nothing from elsewhere (no src,
// href or url() but in-page anchors) and escapes the messages it shows.
func TestPageSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, handRun()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, m := range regexp.MustCompile(`(?i)(src=|href=|url\(|@import|fetch\(|XMLHttpRequest)[^ >]*`).FindAllString(page, -1) {
		if !strings.HasPrefix(m, `href="#`) {
			t.Errorf("outside reference %q", m)
		}
	}
	if strings.Contains(page, "<finding>") || !strings.Contains(page, "first &lt;finding&gt;") || !strings.Contains(page, `href="#op-1"`) {
		t.Fatal("message not escaped or violating op missing")
	}
	if !strings.Contains(page, "kill broker 2 at 2.000 s for 2.000 s") || !strings.Contains(page, "at 2.000 s") {
		t.Fatal("the fault list or the violation's time is missing")
	}
}

// decodeOps is the page's decoder of encodeOps, in Go.
func decodeOps(enc string, n int, scopes []string) ([]Op, error) {
	r := numReader{s: enc}
	out := make([]Op, 0, n)
	var id, us int64
	for range n {
		var v [6]int64
		for i := range v {
			var err error
			if i < 2 {
				v[i], err = r.int()
			} else {
				var u uint64
				u, err = r.uint()
				v[i] = int64(u)
			}
			if err != nil {
				return nil, err
			}
		}
		id, us = id+v[0], us+v[1]
		out = append(out, Op{ID: uint64(id), FromNs: us * 1000, ToNs: (us + v[2]) * 1000, Kind: properties.HistoryKind(v[3] >> 6),
			Outcome: properties.HistoryOutcome(v[3] >> 3 & 7), Row: int(v[3] & 7), Scope: scopes[v[4]], Offset: uint64(v[5])})
	}
	if r.more() {
		return nil, errTrailing
	}
	return out, nil
}

var errTrailing = errors.New("encoded operations refused: numbers after the last operation")

// TestEncodingRoundTrip: operations and bins read back as written, times
// to the microsecond (a start cut down, an end rounded up).
func TestEncodingRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		scopes := []string{"a/b/c/0", "a/b/c/1"}
		n := rapid.IntRange(0, 40).Draw(t, "n")
		ops := make([]Op, n)
		var id uint64
		var at int64
		for i := range ops {
			id += rapid.Uint64Range(1, 1<<40).Draw(t, "id")
			at += rapid.Int64Range(0, 1<<42).Draw(t, "gap")
			ops[i] = Op{ID: id, FromNs: at, ToNs: at + rapid.Int64Range(0, 1<<40).Draw(t, "dur"),
				Kind: properties.HistoryKind(rapid.IntRange(1, 9).Draw(t, "kind")), Outcome: properties.HistoryOutcome(rapid.IntRange(1, 5).Draw(t, "outcome")),
				Row: rapid.IntRange(0, OpRowsMax-1).Draw(t, "row"), Scope: scopes[rapid.IntRange(0, 1).Draw(t, "scope")], Offset: rapid.Uint64().Draw(t, "offset")}
		}
		got, err := decodeOps(encodeOps(ops, map[string]int{scopes[0]: 0, scopes[1]: 1}), n, scopes)
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range ops {
			g := got[i]
			if g.ID != o.ID || g.FromNs != o.FromNs/1000*1000 || g.ToNs != (o.ToNs+999)/1000*1000 || g.Kind != o.Kind ||
				g.Outcome != o.Outcome || g.Row != o.Row || g.Scope != o.Scope || g.Offset != o.Offset {
				t.Fatalf("op %d: wrote %+v, read %+v", i, o, g)
			}
		}
		counts := rapid.SliceOfN(rapid.IntRange(0, 3), 1, 50).Draw(t, "counts")
		for i := range counts {
			if counts[i] == 3 {
				counts[i] = rapid.IntRange(0, 1<<30).Draw(t, "big")
			}
		}
		back, err := decodeBins(encodeBins(counts), len(counts))
		if err != nil || !slices.Equal(back, counts) {
			t.Fatalf("bins %v read back as %v (%v)", counts, back, err)
		}
	})
}

// TestDecodeRefusesBadInput: a cut number, a foreign character, a bin past
// the end are refused, not misread.
func TestDecodeRefusesBadInput(t *testing.T) {
	if _, err := (&numReader{s: "g"}).uint(); err == nil {
		t.Error("a number cut after a continuation digit was read")
	}
	if _, err := (&numReader{s: "A*"}).uint(); err != nil {
		t.Errorf("a good first number refused: %v", err)
	}
	if _, err := (&numReader{s: "*"}).uint(); err == nil {
		t.Error("a foreign character was read as a digit")
	}
	if _, err := decodeBins("FB", 3); err == nil {
		t.Error("a bin past the last was read")
	}
}

// pageDataOf reads the data a page hands its script.
func pageDataOf(t *testing.T, page string) *pageData {
	t.Helper()
	_, rest, ok := strings.Cut(page, `<script type="application/json" id="timeline-data">`)
	data, _, ok2 := strings.Cut(rest, "</script>")
	if !ok || !ok2 {
		t.Fatal("page carries no timeline-data")
	}
	var d pageData
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// PageBytesMax is the size a page must stay under, however long the run.
const PageBytesMax = 1 << 20

// TestPageSizeBound: pages of runs as dense as real ones stay under 1 MB
// at 60 s and 600 s (past ExactOpsMax and BinsMax a longer run's page
// grows only by its faults and leadership terms), and what each hands its script counts
// every operation and keeps the violating ones.
func TestPageSizeBound(t *testing.T) {
	for _, c := range []struct {
		name       string
		durationNs int64
	}{{"60s", 60 * s}, {"600s", 600 * s}} {
		res := denseRun(c.durationNs, 200, 5, 3, uint64(c.durationNs/s*100))
		var b bytes.Buffer
		if err := Write(&b, res); err != nil {
			t.Fatal(err)
		}
		if b.Len() >= PageBytesMax {
			t.Errorf("%s run: page of %d bytes; want under %d", c.name, b.Len(), PageBytesMax)
		}
		d := pageDataOf(t, b.String())
		total, exact := 0, 0
		for _, cl := range d.Clients {
			exact += cl.N
			for _, enc := range cl.Bins {
				counts, err := decodeBins(enc, d.Bins)
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range counts {
					total += n
				}
			}
			if _, err := decodeOps(cl.Ops, cl.N, d.Scopes); err != nil {
				t.Fatalf("%s run, %s: %v", c.name, cl.Name, err)
			}
		}
		if total != len(res.History.Ops) || len(d.Bad) != 2 {
			t.Errorf("%s run: page counts %d operations of %d, %d violating of 2", c.name, total, len(res.History.Ops), len(d.Bad))
		}
		t.Logf("%s run: %d operations, %d one by one, page %d bytes", c.name, total, exact, b.Len())
	}
}

// sixty is the 60 s run of seed 1 with the defaults, kept as an artifact
// keeps it; made once for the tests that read it.
var sixty *runner.Result

func sixtySecondRun(t *testing.T) *runner.Result {
	t.Helper()
	if sixty == nil {
		res, err := runner.Run(runner.Options{Seed: 1, KeepHistory: true, RecordTrace: true, Observe: true})
		if err != nil {
			t.Fatal(err)
		}
		sixty = res
	}
	return sixty
}

// TestSixtySecondRunPage: the page of seed 1's default 60 s run (about
// 12,000 operations; the old page drew each as SVG in 2.2 MB) stays under
// 1 MB; its broker replaced mid-run keeps its row.
func TestSixtySecondRunPage(t *testing.T) {
	res := sixtySecondRun(t)
	if res.Options.DurationNs != 60*s {
		t.Fatalf("the default run lasts %d ns; this test measures a 60 s one", res.Options.DurationNs)
	}
	var b bytes.Buffer
	if err := Write(&b, res); err != nil {
		t.Fatal(err)
	}
	if b.Len() >= PageBytesMax {
		t.Fatalf("60 s run: page of %d bytes; want under %d", b.Len(), PageBytesMax)
	}
	t.Logf("60 s run of seed 1: %d operations, page %d bytes", res.Ops.Total, b.Len())
	m := Build(res)
	for _, r := range res.Replaced {
		lead := find(m, brokerName(r.Slot), "leader")
		later := 0
		for _, l := range lead {
			if strings.Contains(l.Title, fmt.Sprintf("(raft id %d)", r.New)) {
				later++
			}
		}
		if later == 0 {
			t.Errorf("%s rejoined as raft id %d at %s; none of its leadership terms under that id is on its row", brokerName(r.Slot), r.New, secs(r.AtNs))
		}
	}
}
