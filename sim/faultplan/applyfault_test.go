package faultplan

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/sim/world/worldtest"
)

// TestParseFaultReadsWhatStringWrites: one fault line per kind, as
// FaultEvent.String writes it, parses back to the same fault.
func TestParseFaultReadsWhatStringWrites(t *testing.T) {
	faults := []FaultEvent{
		{AtNs: 5, Kind: FaultKill, Node: 1, DurNs: 7},
		{AtNs: 9, Kind: FaultSplit, Mask: 0b110},
		{AtNs: 11, Kind: FaultPartition, Node: 2, Peer: 0},
		{AtNs: 13, Kind: FaultCrashAt, Node: 1, DiskOps: 3, CrashModel: world.CrashTorn, DurNs: 1},
		{AtNs: 15, Kind: FaultKill, Role: "leader", DurNs: 1},
	}
	for _, f := range faults {
		got, err := ParseFault(f.String())
		if err != nil || got != f {
			t.Errorf("ParseFault(%q) = %+v, %v; want %+v", f.String(), got, err, f)
		}
	}
	for _, bad := range []string{"kind=kill node=1 dur_ns=1", "at_ns=1 kind=melt", "at_ns=1 kind=kill node=x dur_ns=1", "at_ns=1 kind=kill nod"} {
		if _, err := ParseFault(bad); err == nil {
			t.Errorf("ParseFault(%q) accepted", bad)
		}
	}
}

// TestRenumberedMapsEveryNodeField: node, peer and each mask bit move by
// the map; a node the map lacks refuses the fault; a role's node is left.
func TestRenumberedMapsEveryNodeField(t *testing.T) {
	shift := func(id int) (int, bool) { return id + 3, id < 2 }
	got, ok := FaultEvent{Kind: FaultPartition, Node: 0, Peer: 1}.Renumbered(shift)
	if !ok || got.Node != 3 || got.Peer != 4 {
		t.Fatalf("partition 0-1 renumbered to %+v (%v), want 3-4", got, ok)
	}
	got, ok = FaultEvent{Kind: FaultSplit, Mask: 0b11}.Renumbered(shift)
	if !ok || got.Mask != 0b11000 {
		t.Fatalf("split mask 0b11 renumbered to %#b (%v), want 0b11000", got.Mask, ok)
	}
	if _, ok := (FaultEvent{Kind: FaultSplit, Mask: 0b101}).Renumbered(shift); ok {
		t.Fatal("a mask naming node 2, which the map lacks, was renumbered")
	}
	got, ok = FaultEvent{Kind: FaultKill, Role: "leader", Node: 7}.Renumbered(shift)
	if !ok || got.Node != 7 {
		t.Fatalf("a role's fault renumbered to %+v (%v), want its node left", got, ok)
	}
}

// TestApplyFaultSchedulesOrRefuses: a fault applied now fires as a plan's
// would; one in the past, on a missing or fault-exempt node, or after the
// heal is refused with the reason.
func TestApplyFaultSchedulesOrRefuses(t *testing.T) {
	w, _ := worldtest.ProbeWorld(t, 1, 3, worldtest.FixedLink, func(c *world.Config) { c.Nodes[2].FaultExempt = true })
	w.RunFor(10)
	if err := ApplyFault(w, FaultEvent{AtNs: w.NowNs(), Kind: FaultKill, Node: 1}); err != nil {
		t.Fatal(err)
	}
	w.RunFor(1)
	if w.Up(1) {
		t.Fatal("node 1 is up after a kill fault applied now")
	}
	for _, tc := range []struct {
		f    FaultEvent
		want string
	}{
		{FaultEvent{AtNs: 0, Kind: FaultKill, Node: 0}, "now is"},
		{FaultEvent{AtNs: w.NowNs(), Kind: FaultKill, Node: 5}, "node"},
		{FaultEvent{AtNs: w.NowNs(), Kind: FaultKill, Node: 2}, "fault-exempt"},
	} {
		if err := ApplyFault(w, tc.f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ApplyFault(%s) = %v, want a refusal naming %q", tc.f, err, tc.want)
		}
	}
	w.Heal()
	if err := ApplyFault(w, FaultEvent{AtNs: w.NowNs(), Kind: FaultKill, Node: 0}); err == nil || !strings.Contains(err.Error(), "healed") {
		t.Fatalf("ApplyFault after the heal = %v, want a refusal naming the heal", err)
	}
}
