package timeline

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/world"
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
		f       faultplan.FaultEvent
		at, end int64
		exact   bool
		want    string
	}{
		{faultplan.FaultEvent{Kind: faultplan.FaultKill, Node: 1, DurNs: 800_000_000}, 12_345_000_000, 13_145_000_000, true,
			"kill broker 2 at 12.345 s for 0.800 s (unsynced writes lost)"},
		{faultplan.FaultEvent{Kind: faultplan.FaultOneWay, Node: 2, Peer: 0}, s, 3 * s, true, "oneway broker 3, peer broker 1 at 1.000 s until 3.000 s"},
		{faultplan.FaultEvent{Kind: faultplan.FaultSplit, Mask: 0b1_0000_0101}, s, 2 * s, true, "split {broker 1, broker 3, outbox relay} from the rest at 1.000 s until 2.000 s"},
		{faultplan.FaultEvent{Kind: faultplan.FaultBridge, Node: 1, Mask: 0b100}, s, 2 * s, true, "bridge {broker 3} from the rest, bridged by broker 2 at 1.000 s until 2.000 s"},
		{faultplan.FaultEvent{Kind: faultplan.FaultStrand, Node: 0, Role: "leader", JumpNs: -3_456_829_898, DurNs: 4_768_069_906}, 5_250_254_270, 0, true,
			"strand broker 1 (the leader) at 5.250 s for 4.768 s (jump -3.456 s)"},
		{faultplan.FaultEvent{Kind: faultplan.FaultLoss, ChancePpm: 147_630}, 7 * s, 10 * s, true, "loss at 7.000 s until 10.000 s (chance 14.763%)"},
		{faultplan.FaultEvent{Kind: faultplan.FaultHealNet}, 3 * s, 3 * s, true, "healnet at 3.000 s"},
		{faultplan.FaultEvent{Kind: faultplan.FaultCrashAt, Node: 2, DiskOps: 20, CrashModel: world.CrashKept, DurNs: s}, s, 2 * s, true,
			"crashat broker 3 at 1.000 s for 1.000 s (disk ops 20, crash model kept)"},
		{faultplan.FaultEvent{Kind: faultplan.FaultClockJump, Node: 4, JumpNs: 300}, s, s, true, "clockjump node 4 at 1.000 s (jump 0.000 s)"},
		{faultplan.FaultEvent{Kind: faultplan.FaultDiskLatency, Node: 0, LatencyMaxNs: 43_503_764}, 9 * s, 60 * s, false,
			"disklatency broker 1 at 9.000 s until 60.000 s at the latest (latency max 0.043 s)"},
	} {
		if got := faultLabel(c.f, c.at, c.end, c.exact, nb); got != c.want {
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

// TestConditionsEnd: each condition ends where the fault table says:
// a clearing fault restores the links (cuts and every link's settings);
// a setting on a node lasts until the next of its kind there, or the
// heal, but a clearing fault between (calm undoes it, healnet does not)
// makes that the latest it lasted; a span lasts its duration (cut short
// by the heal unless lasting), one without a duration the latest until
// the heal.
func TestConditionsEnd(t *testing.T) {
	plan := []appliedFault{
		{f: faultplan.FaultEvent{Kind: faultplan.FaultLoss, ChancePpm: 1000}, atNs: 1 * s},
		{f: faultplan.FaultEvent{Kind: faultplan.FaultDiskLatency, Node: 1, LatencyMaxNs: 1000}, atNs: 1 * s},
		{f: faultplan.FaultEvent{Kind: faultplan.FaultKill, Node: 0}, atNs: 1 * s},
		{f: faultplan.FaultEvent{Kind: faultplan.FaultKill, Node: 2, DurNs: 5 * s}, atNs: 1 * s},
		{f: faultplan.FaultEvent{Kind: faultplan.FaultMembership, Node: 2, DurNs: 20 * s}, atNs: 1 * s},
		{f: faultplan.FaultEvent{Kind: faultplan.FaultPartition, Node: 0, Peer: 1}, atNs: 1 * s},
		{f: faultplan.FaultEvent{Kind: faultplan.FaultKill, Node: 1, DurNs: 20 * s}, atNs: 1 * s},
		{f: faultplan.FaultEvent{Kind: faultplan.FaultFsyncErr, Node: 1, ChancePpm: 10}, atNs: 1 * s},
		{f: faultplan.FaultEvent{Kind: faultplan.FaultFsyncErr, Node: 1, ChancePpm: 20}, atNs: 1500 * s / 1000},
		{f: faultplan.FaultEvent{Kind: faultplan.FaultHealNet}, atNs: 2 * s},
		{f: faultplan.FaultEvent{Kind: faultplan.FaultRestart, Node: 0}, atNs: 4 * s},
	}
	for i, want := range []struct {
		endNs int64
		exact bool
	}{{2 * s, true}, {10 * s, false}, {10 * s, false}, {6 * s, true}, {21 * s, true}, {2 * s, true}, {10 * s, true}, {1500 * s / 1000, true}} {
		if end, exact := undoneAt(plan, i, 10*s); end != want.endNs || exact != want.exact {
			t.Errorf("%s at %s ends at %s (exact %v), want %s (%v)", plan[i].f.Kind, secs(plan[i].atNs), secs(end), exact, secs(want.endNs), want.exact)
		}
	}
	if end, exact := undoneAt(plan[:4], 1, 10*s); end != 10*s || !exact {
		t.Errorf("with no clearing fault the disk latency ends at %s (exact %v), want the heal", secs(end), exact)
	}
}
