package shrink

import (
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/verdict"
)

// TestHistorySlotsSkipWhatNoSlotDrew: re-sends, group acks and the
// runner's own operations draw no slot, and a client's drawn operations
// take its kept slots in order, past the ones the plan skips.
func TestHistorySlotsSkipWhatNoSlotDrew(t *testing.T) {
	a := felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "s", Shard: 0}
	b := a
	b.Shard = 1
	h := &properties.History{Ops: []properties.HistoryOp{
		{ID: 1, Client: 0, Kind: properties.HistoryCommit, Scope: a},
		{ID: 2, Client: 1, Kind: properties.HistoryStateGet, Scope: b},
		{ID: 3, Client: 0, Kind: properties.HistoryCommit, Scope: a, RetryOf: 1},
		{ID: 4, Client: 1, Kind: properties.HistoryGroupAck, Scope: b},
		{ID: 5, Client: 0, Kind: properties.HistoryStateGet, Scope: b},
		{ID: 6, Client: 2, Kind: properties.HistoryGroupFetch, Scope: a}, // the runner's group drain
		{ID: 7, Client: 1, Kind: properties.HistoryCommit, Scope: a},
	}}
	p := &faultplan.Plan{Ops: []faultplan.ClientOps{{Client: 1, Keep: faultplan.OpRangesOf([]int{3, 7})}}}
	got := historySlots(h, p, 2)
	want := []int{0, 3, noSlot, noSlot, 1, noSlot, 7}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("historySlots = %v, want %v", got, want)
		}
	}
	scopes := slotScopes(h, p, 2)
	if len(scopes) != 4 || scopes[opSlot{0, 1}] != b.String() || scopes[opSlot{1, 7}] != a.String() {
		t.Fatalf("slotScopes = %v", scopes)
	}
	if len(slotScopes(nil, p, 2)) != 0 {
		t.Fatalf("slotScopes of no history is not empty")
	}
}

// TestWorkerEvidenceIsRead: a worker's verdict carries each violation's
// evidence, and evidenceOf finds the target's first finding that names
// an operation.
func TestWorkerEvidenceIsRead(t *testing.T) {
	stdout := []byte(`{"trace_hash":"00000000000000ab","violations":[` +
		`{"invariant":"Linearizable","message":"m"},` +
		`{"invariant":"LinearizableRead","message":"m","evidence":[{"op":7,"client":2,"kind":"state_get","scope":"acme/orders/s/0","outcome":"ok","invoke_ns":5,"complete_ns":9}]}` +
		`],"ops":{"total":3},"op_slots":[1,2],"faults":1,"verdict":"safety","exit_code":1}`)
	o, err := readWorker(verdict.ExitSafety, stdout, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	ev := o.evidenceOf("LinearizableRead")
	if len(ev) != 1 || ev[0].Client != 2 || ev[0].Scope != "acme/orders/s/0" || evidenceEndNs(ev) != 9 {
		t.Fatalf("evidence = %+v", ev)
	}
	if o.evidenceOf("Linearizable") != nil || o.evidenceOf("NoPartialCommit") != nil {
		t.Fatalf("evidence of a finding that names no operation, or of no finding")
	}
}
