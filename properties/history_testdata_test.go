package properties

import (
	"bytes"
	"os"
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// historyV1Path is a history written by `felixsim run --seed 3 --duration 1s
// --faults all --history` at fd57d38, before the record and scope types
// moved to package felix. It pins the v1 encoding: whatever the in-memory
// types become, a history written then must still decode, to the same
// values, and encode back to the same bytes.
const historyV1Path = "testdata/history-v1.jsonl"

// TestHistoryV1StillDecodes parses the committed v1 history and checks it
// against facts read off the file with grep and base64 (not from this
// package): the operation and outcome counts, one spelled-out operation
// and one read entry; then it re-encodes and compares bytes.
func TestHistoryV1StillDecodes(t *testing.T) {
	raw, err := os.ReadFile(historyV1Path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ParseHistory(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("a history written by an earlier felixsim no longer parses: %v", err)
	}
	want := HistoryCounts{Total: 232, OK: 199, Refused: 4, Failed: 29}
	if got := h.Counts(); got != want {
		t.Fatalf("counts %+v, want %+v", got, want)
	}
	notSent := 0
	for i := range h.Ops {
		if h.Ops[i].NotSent {
			notSent++
		}
	}
	if notSent != 3 {
		t.Fatalf("%d not_sent operations, want 3", notSent)
	}

	op := &h.Ops[0] // line 2 of the file
	if op.ID != 1 || op.Client != 1 || op.Kind != HistoryCommitIf || op.Outcome != OutcomeFailed ||
		op.Scope.String() != "globex/orders/order-events/1" || op.EntityKey != "order-5" ||
		op.InvokeNs != 8415973 || op.CompleteNs != 18619222 {
		t.Fatalf("op 1 decoded as %+v", op)
	}
	if !op.Record.Conditional || op.Record.ExpectedOffset != 0 {
		t.Fatalf("op 1 (commit_if, no expected_offset field) decoded with conditional=%t expected %d", op.Record.Conditional, op.Record.ExpectedOffset)
	}
	assertV1Record(t, "op 1", op.Record, false, `{"event":"globex/c1/1","entity":"order-5"}`,
		[]v1Op{{key: "order-5", value: `{"status":"globex/c1/1"}`}, {key: "cart-5", delete: true}})

	sub := &h.Ops[43] // line 45: the first read that returned entries
	if sub.ID != 44 || sub.Kind != HistorySubscribe || sub.MaxEntries != 16 || len(sub.Entries) != 1 || sub.Entries[0].Offset != 0 {
		t.Fatalf("op 44 decoded as %+v", sub)
	}
	assertV1Record(t, "op 44 entry 0", &sub.Entries[0].Record, true, `{"event":"globex/c1/8","entity":"order-6"}`,
		[]v1Op{{key: "order-6", value: `{"status":"globex/c1/8"}`}, {key: "cart-6", delete: true}})

	var out bytes.Buffer
	if err := EncodeHistory(&out, h); err != nil {
		t.Fatal(err)
	}
	v2 := bytes.Replace(raw, []byte("felixsim-history v1\n"), []byte("felixsim-history v2\n"), 1)
	if !bytes.Equal(out.Bytes(), v2) {
		t.Fatalf("re-encoding the v1 history changed its operations' bytes (%d bytes, was %d), or its header is not v2's", out.Len(), len(raw))
	}
}

// v1Op is a state operation as the v1 file spells it.
type v1Op struct {
	key, value string
	delete     bool
}

func assertV1Record(t *testing.T, what string, r *felix.Record, enqueue bool, payload string, ops []v1Op) {
	t.Helper()
	if r == nil {
		t.Fatalf("%s: no record", what)
	}
	if (r.Event == felix.EventEnqueue) != enqueue || string(r.Payload) != payload || len(r.Ops) != len(ops) {
		t.Fatalf("%s: record %+v, want enqueue=%t payload %s and %d ops", what, r, enqueue, payload, len(ops))
	}
	for i, w := range ops {
		got := r.Ops[i]
		if got.Key != w.key || (got.Kind == felix.OpDelete) != w.delete || string(got.Value) != w.value {
			t.Fatalf("%s: op %d is %+v, want %+v", what, i, got, w)
		}
	}
}
