package artifact

import (
	"bytes"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim"
)

// FuzzParsePlanFile: any input is parsed or refused, never a panic; an
// accepted plan file written back with its meta parses to the same plan
// and meta. Seeds are in testdata/fuzz/FuzzParsePlanFile.
func FuzzParsePlanFile(f *testing.F) {
	f.Add("felixsim-plan v1\n# felixsim-revision: abc\n# trace-hash: 0123456789abcdef\n# brokers: 3\nseed 1\nnodes 8\nduration_ns 5\nfault at=1 kind=kill node=1 dur=3\n# end: 1 faults\n")
	f.Add("felixsim-plan v1\nseed 2\nnodes 8\nduration_ns 9\n")
	f.Fuzz(func(t *testing.T, text string) {
		p, m, err := ParsePlanFile(text)
		if err != nil {
			if p != nil {
				t.Fatalf("refusal %v returned a plan", err)
			}
			return
		}
		if m.Revision == "" {
			m.Revision = "unknown" // WritePlan always writes one
		}
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

// FuzzParseTrace: any input is parsed or refused, never a panic; an
// accepted trace written back reads back equal. Seeds are in
// testdata/fuzz/FuzzParseTrace.
func FuzzParseTrace(f *testing.F) {
	events := []sim.TraceEvent{{AtNs: 0, Kind: sim.EvBoot, Node: 0, Peer: -1}, {AtNs: 5, Kind: sim.EvDeliver, Node: 1, Peer: 0, Detail: 1 << 63}}
	var b bytes.Buffer
	if err := WriteTrace(&b, events, sim.TraceHashOf(events), 2, false); err != nil {
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
