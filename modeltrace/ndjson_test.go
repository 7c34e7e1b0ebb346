package modeltrace

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// sampleTrace has a step of every kind, each field its kind uses set.
func sampleTrace() []Step {
	w := Write{Tenant: "acme", Kind: KindCommitIf, Conditional: true, Expected: 3, Ops: 2, Digest: 7,
		StateOps: []StateOp{{Key: "k1", Value: 12}, {Key: "k2", Delete: true}}}
	return []Step{
		{Kind: Restart, Broker: 1, Group: 2, Index: 1, Entries: []Entry{{Term: 1}}, CommitMark: 1, Applied: 1, Scopes: []ScopeNext{{Tenant: "acme", Next: 4}}},
		{Kind: Vote, Broker: 1, Group: 2, Term: 2, Candidate: 1},
		{Kind: Promote, Broker: 1, Group: 2, Term: 2},
		{Kind: Request, Broker: 1, Group: 2, Term: 2, Digest: 9, Client: 5, ReqID: 6, Asked: w.Clone(), Proposed: w.Clone()},
		{Kind: Persist, Broker: 1, Group: 2, Index: 2, Entries: []Entry{{Term: 2}, {Term: 2, Digest: 9}}},
		{Kind: Commit, Broker: 1, Group: 2, Index: 3},
		{Kind: Apply, Broker: 1, Group: 2, Index: 3, Term: 2, Digest: 9, Outcome: OutcomeRefused, Offset: 4},
		{Kind: Answer, Broker: 1, Client: 5, ReqID: 6, Outcome: OutcomeRefused, Offset: 4},
		{Kind: Snapshot, Broker: 3, Group: 2, Index: 3, Term: 2, Scopes: []ScopeNext{{Tenant: "acme", Next: 4}}},
		{Kind: ProposeConf, Broker: 1, Group: 2, Term: 2, Digest: 11, Change: &ConfChange{Type: AddLearner, Node: 8}},
		{Kind: ApplyConf, Broker: 1, Group: 2, Index: 4, Term: 2, Digest: 11, Voters: []uint64{1, 2, 3}, Learners: []uint64{8}},
		{Kind: StateRead, Broker: 1, Group: 2, Tenant: "acme", Key: "k1", Applied: 4, Found: true, Digest: 12, Offset: 2, First: 1},
		{Kind: SubscriberRead, Broker: 1, Group: 2, Tenant: "acme", Applied: 4, Offset: 1, First: 1, Records: []uint64{7, 8}},
	}
}

// TestNDJSONRoundTrip: a trace written and read back is the same trace,
// a step of every kind in it.
func TestNDJSONRoundTrip(t *testing.T) {
	in := sampleTrace()
	kinds := map[Kind]bool{}
	for i := range in {
		kinds[in[i].Kind] = true
	}
	if len(kinds) != int(kindEnd)-1 {
		t.Fatalf("the sample has %d of the %d step kinds", len(kinds), int(kindEnd)-1)
	}
	var buf bytes.Buffer
	n := NewNDJSON(&buf)
	Replay(in, n)
	if err := n.Flush(); err != nil {
		t.Fatal(err)
	}
	out, err := ReadNDJSON(&buf)
	if err != nil || !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip: %v\nin  %+v\nout %+v", err, in, out)
	}
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

// FuzzReadNDJSON: any input is either refused with an error naming a line
// or read into steps that write back and read again unchanged; never a
// panic. The seeds (run by go test) are the sample trace and its lines.
func FuzzReadNDJSON(f *testing.F) {
	var buf bytes.Buffer
	n := NewNDJSON(&buf)
	Replay(sampleTrace(), n)
	if err := n.Flush(); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	for _, line := range strings.Split(buf.String(), "\n") {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		steps, err := ReadNDJSON(bytes.NewReader(b))
		if err != nil {
			if !strings.Contains(err.Error(), "refused") && !strings.Contains(err.Error(), "token too long") {
				t.Fatalf("error %q does not say what was refused", err)
			}
			return
		}
		var out bytes.Buffer
		w := NewNDJSON(&out)
		Replay(steps, w)
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		again, err := ReadNDJSON(&out)
		if err != nil || !reflect.DeepEqual(normalized(steps), normalized(again)) {
			t.Fatalf("read %d steps that do not read back: %v", len(steps), err)
		}
	})
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
