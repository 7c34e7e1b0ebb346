package timeline

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/felixsim/felixsim/sim"
)

// TestSecs: simulated time reads in seconds with millisecond digits,
// cut (not rounded) below the millisecond.
func TestSecs(t *testing.T) {
	for ns, want := range map[int64]string{0: "0.000 s", 1: "0.000 s", 999_999: "0.000 s", 1_000_000: "0.001 s",
		12_345_678_901: "12.345 s", 800_000_000: "0.800 s", 600 * s: "600.000 s", -2_175_588_020: "-2.175 s"} {
		if got := secs(ns); got != want {
			t.Errorf("secs(%d) = %q, want %q", ns, got, want)
		}
	}
}

// TestFaultLabels: each shape of fault reads as a sentence with its
// nodes by their rows' names and its times in seconds (3 brokers, 4
// clients: node 8 is the outbox relay, node 4 a client).
func TestFaultLabels(t *testing.T) {
	nb := numbering{brokers: 3, relay: 8}
	for _, c := range []struct {
		f       sim.FaultEvent
		at, end int64
		want    string
	}{
		{sim.FaultEvent{Kind: sim.FaultKill, Node: 1, DurNs: 800_000_000}, 12_345_000_000, 13_145_000_000,
			"kill broker 2 at 12.345 s for 0.800 s (unsynced writes lost)"},
		{sim.FaultEvent{Kind: sim.FaultOneWay, Node: 2, Peer: 0}, s, 3 * s, "oneway broker 3 to broker 1 at 1.000 s until 3.000 s"},
		{sim.FaultEvent{Kind: sim.FaultSplit, Mask: 0b1_0000_0101}, s, 2 * s, "split {broker 1, broker 3, outbox relay} from the rest at 1.000 s until 2.000 s"},
		{sim.FaultEvent{Kind: sim.FaultBridge, Node: 1, Mask: 0b100}, s, 2 * s, "bridge {broker 3} from the rest, bridged by broker 2 at 1.000 s until 2.000 s"},
		{sim.FaultEvent{Kind: sim.FaultStrand, Node: 0, Role: "leader", JumpNs: -3_456_829_898, DurNs: 4_768_069_906}, 5_250_254_270, 0,
			"strand broker 1 (the leader) at 5.250 s for 4.768 s (jump -3.456 s)"},
		{sim.FaultEvent{Kind: sim.FaultLoss, ChancePpm: 147_630}, 7 * s, 10 * s, "loss at 7.000 s until 10.000 s (chance 14.763%)"},
		{sim.FaultEvent{Kind: sim.FaultHealNet}, 3 * s, 3 * s, "healnet at 3.000 s"},
		{sim.FaultEvent{Kind: sim.FaultCrashAt, Node: 2, DiskOps: 20, CrashModel: sim.CrashKept, DurNs: s}, s, 2 * s,
			"crashat broker 3 at 1.000 s for 1.000 s (disk ops 20, crash model kept)"},
		{sim.FaultEvent{Kind: sim.FaultClockJump, Node: 4, JumpNs: 300}, s, s, "clockjump node 4 at 1.000 s (jump 0.000 s)"},
	} {
		if got := faultLabel(c.f, c.at, c.end, nb); got != c.want {
			t.Errorf("label of %s:\n got %q\nwant %q", c.f, got, c.want)
		}
	}
}

// brokerRef finds the brokers a label names.
var brokerRef = regexp.MustCompile(`\bbroker (\d+)\b`)

// TestFaultsDrawnOnTheRowsTheyName takes a run with faults on several
// brokers (and a broker replaced) and checks the one numbering: every fault drawn on a broker's
// lane names that broker in its label, every broker a label names is a
// lane that exists and holds the fault, and the lane is the plan's node
// plus one (the plan numbers nodes from 0; an oracle apart from the
// page's own mapping).
func TestFaultsDrawnOnTheRowsTheyName(t *testing.T) {
	res := sixtySecondRun(t)
	m := Build(res)
	lanes := map[string]int{}
	for i, l := range m.Lanes {
		lanes[l.Name] = i
	}
	struck := map[string]bool{}
	for fi, f := range m.Faults {
		drawnOn := map[string]bool{}
		for _, l := range f.Lanes {
			drawnOn[m.Lanes[l].Name] = true
			if !laneHoldsFault(m.Lanes[l], fi+1) {
				t.Errorf("fault %q lists lane %s but no bar of it is there", f.Label, m.Lanes[l].Name)
			}
		}
		named := map[string]bool{}
		for _, ref := range brokerRef.FindAllStringSubmatch(f.Label, -1) {
			name := "broker " + ref[1]
			named[name] = true
			if _, ok := lanes[name]; !ok || !drawnOn[name] {
				t.Errorf("fault %q names %s: a lane %v, drawn there %v", f.Label, name, ok, drawnOn[name])
			}
		}
		for name := range drawnOn {
			if _, isBroker := lanes[name]; isBroker && lanes[name] < res.Options.Brokers && !named[name] {
				t.Errorf("fault %q is drawn on %s, which it does not name", f.Label, name)
			}
		}
		if node, ok := planFieldsOfLine(f.Plan)["node"]; ok {
			n, _ := strconv.Atoi(node)
			if n < res.Options.Brokers {
				want := fmt.Sprintf("broker %d", n+1)
				if !drawnOn[want] {
					t.Errorf("fault %q (plan %s) is not drawn on %s", f.Label, f.Plan, want)
				}
				struck[want] = true
			}
		}
	}
	if len(struck) < 2 {
		t.Fatalf("seed 1 struck brokers %v; the test needs faults on several", struck)
	}
}

func laneHoldsFault(l Lane, fault int) bool {
	for _, b := range l.Bars {
		if b.Fault == fault {
			return true
		}
	}
	return false
}

// planFieldsOfLine reads a plan line's key=value fields.
func planFieldsOfLine(line string) map[string]string {
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(\w+)=(\S+)`).FindAllStringSubmatch(line, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// TestConditionsEnd: each condition ends where the world ends it
// (sim/faults.go, sim/network.go): healnet restores the links' settings
// but not a disk's; calm ends every condition, a kill's early; a kill
// without a duration ends at its node's restart; a membership change
// outlives the heal.
func TestConditionsEnd(t *testing.T) {
	plan := []appliedFault{
		{f: sim.FaultEvent{Kind: sim.FaultLoss, ChancePpm: 1000}, atNs: 1 * s},
		{f: sim.FaultEvent{Kind: sim.FaultDiskLatency, Node: 1, LatencyMaxNs: 1000}, atNs: 1 * s},
		{f: sim.FaultEvent{Kind: sim.FaultKill, Node: 0}, atNs: 1 * s},
		{f: sim.FaultEvent{Kind: sim.FaultKill, Node: 2, DurNs: 5 * s}, atNs: 1 * s},
		{f: sim.FaultEvent{Kind: sim.FaultMembership, Node: 2, DurNs: 20 * s}, atNs: 1 * s},
		{f: sim.FaultEvent{Kind: sim.FaultHealNet}, atNs: 2 * s},
		{f: sim.FaultEvent{Kind: sim.FaultRestart, Node: 1}, atNs: 3 * s},
		{f: sim.FaultEvent{Kind: sim.FaultRestart, Node: 0}, atNs: 4 * s},
		{f: sim.FaultEvent{Kind: sim.FaultCalm}, atNs: 5 * s},
	}
	for i, want := range []int64{2 * s, 5 * s, 4 * s, 5 * s, 21 * s} {
		if got := undoneAt(plan, i, 10*s); got != want {
			t.Errorf("%s at %s ends at %s, want %s", plan[i].f.Kind, secs(plan[i].atNs), secs(got), secs(want))
		}
	}
	if got := undoneAt(plan[:4], 1, 10*s); got != 10*s {
		t.Errorf("with no calm the disk latency ends at %s, want the heal", secs(got))
	}
}
