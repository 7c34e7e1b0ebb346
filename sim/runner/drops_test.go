package runner

import (
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
)

// TestRetentionDropsKeepStepsAtOneLength: two retain commands applied at
// one log length (no write between them, as on seed 111 of `--faults
// all,operator`: an age step below 110 at 32.69 s, an operator's below 136
// at 33.19 s) are two steps, each dated by its own earliest apply. Merged,
// the larger drop took the earlier date, and a group fetch of offsets
// 133..136 between the two was wrongly illegal. Replicas reporting one
// step again only move its date earlier.
func TestRetentionDropsKeepStepsAtOneLength(t *testing.T) {
	sc := felix.Scope{Tenant: "globex", Namespace: "orders", Stream: "order-events"}
	r := newRetentionDrops()
	r.note(&node.DroppedPrefix{Node: 3, Scope: sc, AtNext: 138, Below: 110}, 32_694)
	r.note(&node.DroppedPrefix{Node: 2, Scope: sc, AtNext: 138, Below: 110}, 32_697)
	r.note(&node.DroppedPrefix{Node: 3, Scope: sc, AtNext: 138, Below: 136}, 33_190)
	r.note(&node.DroppedPrefix{Node: 8, Scope: sc, AtNext: 138, Below: 136}, 33_193)
	r.note(&node.DroppedPrefix{Node: 2, Scope: sc, AtNext: 120, Below: 100, WithWrite: true}, 30_000)
	ref := properties.ReplicaLog{Scopes: []properties.ReplicaView{{Scope: sc}}}
	r.attach(&ref)
	want := []properties.RetentionDrop{
		{AtNext: 120, Below: 100, WithWrite: true, AppliedNs: 30_000},
		{AtNext: 138, Below: 110, AppliedNs: 32_694},
		{AtNext: 138, Below: 136, AppliedNs: 33_190},
	}
	got := ref.Scopes[0].Drops
	if len(got) != len(want) {
		t.Fatalf("attached %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("step %d is %+v, want %+v (all: %+v)", i, got[i], want[i], got)
		}
	}
}
