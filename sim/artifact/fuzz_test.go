package artifact

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/world"
)

// FuzzParsePlanFile: any input is parsed or refused, never a panic; an
// accepted plan file written back (an older file's run description
// completed with the defaults) parses to the same plan and meta; and no
// strict prefix of an accepted v3 file is accepted, but for one that only
// drops blank lines after the end line. Seeds are in
// testdata/fuzz/FuzzParsePlanFile.
func FuzzParsePlanFile(f *testing.F) {
	f.Add("felixsim-plan v1\n# felixsim-revision: abc\n# trace-hash: 0123456789abcdef\n# brokers: 3\nseed 1\nnodes 8\nduration_ns 5\nfault at=1 kind=kill node=1 dur=3\n# end: 1 faults\n")
	f.Add("felixsim-plan v1\nseed 2\nnodes 8\nduration_ns 9\n")
	f.Add(v3Sample)
	f.Fuzz(func(t *testing.T, text string) {
		p, m, err := ParsePlanFile(text)
		if err != nil {
			if p != nil {
				t.Fatalf("refusal %v returned a plan", err)
			}
			return
		}
		if m.Format == 3 {
			assertNoPrefixAccepted(t, text)
		}
		m = completed(m)
		var b bytes.Buffer
		if err := WritePlan(&b, p, m); err != nil {
			t.Fatal(err)
		}
		p2, m2, err := ParsePlanFile(b.String())
		if err != nil {
			t.Fatalf("written back, refused: %v\n%s", err, b.String())
		}
		if p2.String() != p.String() || m2 != m {
			t.Fatalf("round trip changed the plan:\n%s\nvs\n%s\n%+v vs %+v", p, p2, m, m2)
		}
	})
}

// v3Sample is a plan file as `felixsim run --out` writes one.
const v3Sample = "felixsim-plan v3\n# felixsim-revision: 0123abc\n# trace-hash: 44cb1e4a7d6b7231\n# brokers: 3\n# streams: 1\n# shards: 4\n" +
	"# defects: ack-before-quorum\n# faults: all\n# fault-gap-ns: 2000000000\n# liveness-budget-ns: 30000000000\n# quiesce-budget-ns: 20000000000\n# change-liveness-budget-ns: 1000000000\n" +
	"# validate-trace: true\n# linearizable-steps-max: 0\nseed 3\nnodes 9\nduration_ns 60000000000\nparam clients 4\n" +
	"fault at_ns=100 kind=partition node=1 peer=2\nfault at_ns=200 kind=kill node=0 torn=false dur_ns=5000 role=leader\n# end: 2 faults, 20 lines\n"

// completed fills what an older plan file's meta does not record with
// what a run of the defaults records, as a v3 file.
func completed(m Meta) Meta {
	d := MetaOf(runner.Options{ValidateTrace: true}, "unknown")
	d.TraceHash, d.HasTraceHash = m.TraceHash, m.HasTraceHash
	if m.Revision != "" {
		d.Revision = m.Revision
	}
	if m.Format == 3 {
		return m
	}
	for _, f := range []struct{ to, from *int }{{&d.Brokers, &m.Brokers}, {&d.Streams, &m.Streams}, {&d.Shards, &m.Shards}} {
		if *f.from > 0 {
			*f.to = *f.from
		}
	}
	if m.Defects != "" {
		d.Defects = m.Defects
	}
	return d
}

// assertNoPrefixAccepted fails when a strict prefix of the accepted v3
// plan file text is accepted, but for one that keeps all of it up to the
// end line's newline (what follows it is blank).
func assertNoPrefixAccepted(t *testing.T, text string) {
	t.Helper()
	whole := strings.TrimRight(text, " \t\r\n") + "\n"
	for cut := 0; cut < len(text); cut++ {
		if len(text[:cut]) >= len(whole) && strings.HasPrefix(text[:cut], whole) {
			continue // only blank lines dropped
		}
		if _, _, err := ParsePlanFile(text[:cut]); err == nil {
			t.Fatalf("the first %d of %d bytes were accepted as a plan file:\n%s", cut, len(text), text[:cut])
		}
	}
}

// FuzzParseTrace: any input is parsed or refused, never a panic; an
// accepted trace written back reads back equal. Seeds are in
// testdata/fuzz/FuzzParseTrace.
func FuzzParseTrace(f *testing.F) {
	events := []world.TraceEvent{{AtNs: 0, Kind: world.EvBoot, Node: 0, Peer: -1}, {AtNs: 5, Kind: world.EvDeliver, Node: 1, Peer: 0, Detail: 1 << 63}}
	var b bytes.Buffer
	if err := WriteTrace(&b, events, world.TraceHashOf(events), 2, false); err != nil {
		f.Fatal(err)
	}
	f.Add(b.String())
	f.Fuzz(func(t *testing.T, text string) {
		tr, err := ParseTrace(strings.NewReader(text))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := WriteTrace(&out, tr.Events, tr.Hash, tr.Executed, tr.Truncated); err != nil {
			t.Fatal(err)
		}
		tr2, err := ParseTrace(&out)
		if err != nil {
			t.Fatalf("written back, refused: %v", err)
		}
		if len(tr2.Events) != len(tr.Events) || tr2.Hash != tr.Hash || tr2.Executed != tr.Executed {
			t.Fatalf("round trip changed the trace")
		}
		for i := range tr.Events {
			if tr.Events[i] != tr2.Events[i] {
				t.Fatalf("event %d changed", i)
			}
		}
	})
}

// FuzzParseReport: any input is parsed or refused, never a panic; an
// accepted report.json written back as JSON reads back equal. Seeds: the
// checked-in report of each version read (testdata/versions) and a model
// trace's first line, which must be refused.
func FuzzParseReport(f *testing.F) {
	good, err := os.ReadFile(filepath.Join(versionsDir, "report-v2.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"header":{"format":"felixsim-modeltrace v1","brokers":3}}` + "\n"))
	f.Add([]byte(`{"format": "felixsim-report v2", "verdict": "pass", "exit_code": 0}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseReport(b)
		if err != nil {
			return
		}
		j, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		j = append([]byte("{"), bytes.TrimPrefix(j, []byte("{\n  "))...)
		r2, err := ParseReport(j)
		if err != nil {
			t.Fatalf("written back, refused: %v", err)
		}
		if !reflect.DeepEqual(r, r2) {
			t.Fatalf("round trip changed the report")
		}
	})
}

// TestFuzzSeedsFromVersions: the checked-in version examples parse
// through the very parsers the fuzz targets drive.
func TestFuzzSeedsFromVersions(t *testing.T) {
	for _, file := range []string{"plan-v1.txt", "plan-v2.txt", "plan-v3.txt"} {
		b, _ := os.ReadFile(filepath.Join(versionsDir, file))
		if _, _, err := ParsePlanFile(string(b)); err != nil {
			t.Errorf("%s: %v", file, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(versionsDir, "events-v1.ndjson"))
	if _, err := ParseTrace(bytes.NewReader(b)); err != nil {
		t.Errorf("events-v1.ndjson: %v", err)
	}
}
