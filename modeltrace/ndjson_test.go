package modeltrace

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestNDJSONRoundTrip: a trace written and read back is the same trace.
func TestNDJSONRoundTrip(t *testing.T) {
	w := Write{Tenant: "acme", Kind: KindCommitIf, Conditional: true, Expected: 3, Ops: 2, Digest: 7}
	in := []Step{
		{Kind: Restart, Broker: 1, Group: 2, Index: 1, Entries: []Entry{{Term: 1}}, CommitMark: 1, Applied: 1, Scopes: []ScopeNext{{Tenant: "acme", Next: 4}}},
		{Kind: Request, Broker: 1, Group: 2, Term: 2, Digest: 9, Client: 5, ReqID: 6, Asked: &w, Proposed: &w},
		{Kind: Apply, Broker: 1, Group: 2, Index: 3, Term: 2, Digest: 9, Outcome: OutcomeRefused, Offset: 4},
		{Kind: ProposeConf, Broker: 1, Group: 2, Term: 2, Digest: 11, Change: &ConfChange{Type: AddLearner, Node: 8}},
		{Kind: ApplyConf, Broker: 1, Group: 2, Index: 4, Term: 2, Digest: 11, Voters: []uint64{1, 2, 3}, Learners: []uint64{8}},
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
	if _, err := ReadNDJSON(strings.NewReader("{\"kind\":\"Teleport\"}\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("invalid kind accepted: %v", err)
	}
	if _, err := ReadNDJSON(strings.NewReader("{\"kind\":")); err == nil {
		t.Errorf("truncated line accepted")
	}
}
