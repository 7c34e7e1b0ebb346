package modeltrace

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sampleTrace has a step of every kind, each field its kind uses set,
// and a write of every operator kind.
func sampleTrace() []Step {
	w := Write{Tenant: "acme", Kind: KindCommitIf, Conditional: true, Expected: 3, Ops: 2, Digest: 7,
		StateOps: []StateOp{{Key: "k1", Value: 12}, {Key: "k2", Delete: true}}}
	retain := Write{Tenant: "acme", Kind: KindRetain, Retain: 2}
	feature := Write{Kind: KindFeature, Feature: "atomic_commit"}
	incarnation := Write{Kind: KindIncarnation, Generation: 2, Deleted: true}
	return []Step{
		{Kind: Restart, Broker: 1, Group: 2, Index: 1, Entries: []Entry{{Term: 1}}, CommitMark: 1, Applied: 1, Scopes: []ScopeNext{{Tenant: "acme", Next: 4, First: 1}},
			RetainedMax: 1 << 20, Finalized: true},
		{Kind: Vote, Broker: 1, Group: 2, Term: 2, Candidate: 1},
		{Kind: Promote, Broker: 1, Group: 2, Term: 2},
		{Kind: Request, Broker: 1, Group: 2, Term: 2, Digest: 9, Client: 5, ReqID: 6, Asked: w.Clone(), Proposed: w.Clone()},
		{Kind: Request, Broker: 1, Group: 2, Term: 2, Digest: 10, Asked: retain.Clone(), Proposed: retain.Clone()},
		{Kind: Request, Broker: 1, Group: 2, Term: 2, Digest: 13, Asked: feature.Clone(), Proposed: feature.Clone()},
		{Kind: Request, Broker: 1, Group: 2, Term: 2, Digest: 14, Asked: incarnation.Clone(), Proposed: incarnation.Clone()},
		{Kind: Persist, Broker: 1, Group: 2, Term: 2, Index: 2, Entries: []Entry{{Term: 2}, {Term: 2, Digest: 9}}},
		{Kind: Commit, Broker: 1, Group: 2, Index: 3},
		{Kind: Apply, Broker: 1, Group: 2, Index: 3, Term: 2, Digest: 9, Outcome: OutcomeRefused, Offset: 4, First: 1},
		{Kind: Apply, Broker: 1, Group: 2, Index: 4, Term: 2, Digest: 10, Outcome: OutcomeError, Error: "InvalidRequest", First: 1},
		{Kind: Answer, Broker: 1, Client: 5, ReqID: 6, Outcome: OutcomeRefused, Offset: 4},
		{Kind: Snapshot, Broker: 3, Group: 2, Index: 3, Term: 2, Scopes: []ScopeNext{{Tenant: "acme", Next: 4, First: 1}}},
		{Kind: ProposeConf, Broker: 1, Group: 2, Term: 2, Digest: 11, Change: &ConfChange{Type: AddLearner, Node: 8}},
		{Kind: ApplyConf, Broker: 1, Group: 2, Index: 4, Term: 2, Digest: 11, Voters: []uint64{1, 2, 3}, Learners: []uint64{8}},
		{Kind: ReadStart, Broker: 1, Group: 2, Client: 5, ReqID: 7, Tenant: "acme", Key: "k1"},
		{Kind: StateRead, Broker: 1, Group: 2, Client: 5, ReqID: 7, Tenant: "acme", Key: "k1", Applied: 4, ReadIndex: 4, Found: true, Digest: 12, Offset: 2, First: 1},
		{Kind: SubscriberRead, Broker: 1, Group: 2, Tenant: "acme", Applied: 4, Offset: 1, First: 1, Records: []uint64{7, 8}},
	}
}

// TestNDJSONRoundTrip: a trace written (header, steps, end line) and read
// back is the same trace, whole, a step of every kind in it.
func TestNDJSONRoundTrip(t *testing.T) {
	in := sampleTrace()
	kinds := map[Kind]bool{}
	for i := range in {
		kinds[in[i].Kind] = true
	}
	if len(kinds) != int(kindEnd)-1 {
		t.Fatalf("the sample has %d of the %d step kinds", len(kinds), int(kindEnd)-1)
	}
	out, err := Read(bytes.NewReader(writeTrace(t, in)))
	if err != nil || !reflect.DeepEqual(in, out.Steps) {
		t.Fatalf("round trip: %v\nin  %+v\nout %+v", err, in, out)
	}
	if out.Incomplete != "" || out.Altered || out.Version != len(FormatVersions) || out.Header == nil || out.Header.Brokers != 3 {
		t.Fatalf("read back as %+v, want whole, of the current version, 3 brokers", out)
	}
}

// writeTrace writes steps as a whole export of a 3-broker cluster.
func writeTrace(t testing.TB, steps []Step) []byte {
	t.Helper()
	var buf bytes.Buffer
	n := NewNDJSON(&buf)
	n.WriteHeader(Header{Brokers: 3})
	Replay(steps, n)
	if err := n.End(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestReadNDJSONIsStrict: a line that is not exactly one step of a known
// kind, with a step's fields only, is refused naming its line.
func TestReadNDJSONIsStrict(t *testing.T) {
	good := `{"kind":"Commit","broker":1,"group":2,"index":3}`
	if _, err := ReadNDJSON(strings.NewReader(good + "\n")); err != nil {
		t.Fatalf("a good line refused: %v", err)
	}
	for name, text := range map[string]string{
		"unknown kind":           `{"kind":"Teleport"}`,
		"no kind":                `{"broker":1,"group":2}`,
		"kind by number":         `{"kind":6,"broker":1}`,
		"unknown field":          `{"kind":"Commit","broker":1,"group":2,"index":3,"extra":1}`,
		"unknown field of write": `{"kind":"Request","broker":1,"group":2,"asked":{"tenant":"a","kind":"commit","colour":1}}`,
		"unknown outcome":        `{"kind":"Apply","broker":1,"group":2,"outcome":"maybe"}`,
		"two objects":            good + good,
		"trailing garbage":       good + "]",
		"truncated":              `{"kind":`,
		"null":                   `null`,
		"negative number":        `{"kind":"Commit","broker":-1}`,
		"empty line":             ``,
	} {
		_, err := ReadNDJSON(strings.NewReader(good + "\n" + text + "\n"))
		if err == nil || !strings.Contains(err.Error(), "line 2 refused") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// FuzzRead: any input is either refused with an error saying what was
// refused, or read into a trace that, written back whole, reads again as
// the same steps, whole; never a panic. The seeds (run by go test) are
// the sample trace written whole and cut at every line, and one example
// of every format version (testdata/versions).
func FuzzRead(f *testing.F) {
	whole := writeTrace(f, sampleTrace())
	for k := 0; k <= bytes.Count(whole, []byte("\n")); k++ {
		f.Add(cutLines(whole, k))
	}
	for _, name := range versionExamples {
		b, err := os.ReadFile(filepath.Join("testdata", "versions", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Read(bytes.NewReader(b))
		if err != nil {
			if !strings.Contains(err.Error(), "refused") && !strings.Contains(err.Error(), "token too long") {
				t.Fatalf("error %q does not say what was refused", err)
			}
			return
		}
		if got.Altered && got.Incomplete == "" {
			t.Fatalf("altered but not incomplete: %+v", got)
		}
		again, err := Read(bytes.NewReader(writeTrace(t, got.Steps)))
		if err != nil || again.Incomplete != "" || !reflect.DeepEqual(normalized(got.Steps), normalized(again.Steps)) {
			t.Fatalf("read %d steps that do not read back whole: %v %+v", len(got.Steps), err, again)
		}
	})
}

// cutLines is b's first k lines, as head -n k keeps them.
func cutLines(b []byte, k int) []byte {
	end := 0
	for i := 0; i < k; i++ {
		j := bytes.IndexByte(b[end:], '\n')
		if j < 0 {
			return b
		}
		end += j + 1
	}
	return b[:end]
}

// normalized drops the difference between an empty and a nil slice, which
// the encoding does not keep (omitempty).
func normalized(steps []Step) []Step {
	out := make([]Step, len(steps))
	for i := range steps {
		out[i] = steps[i].Clone()
		nilIfEmpty(&out[i])
	}
	return out
}

func nilIfEmpty(s *Step) {
	if len(s.Entries) == 0 {
		s.Entries = nil
	}
	if len(s.Scopes) == 0 {
		s.Scopes = nil
	}
	if len(s.Voters) == 0 {
		s.Voters = nil
	}
	if len(s.Learners) == 0 {
		s.Learners = nil
	}
	if len(s.Records) == 0 {
		s.Records = nil
	}
	for _, w := range []*Write{s.Asked, s.Proposed} {
		if w != nil && len(w.StateOps) == 0 {
			w.StateOps = nil
		}
	}
}
