package timeline

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/world"
)

const s = int64(1e9)

// handRun is a run written by hand: 3 brokers and 4 clients (so the
// outbox relay is node 8); broker 1 (node 0) is cut from broker 2 at 1 s
// until a healnet at 3 s; broker 2 (node 1) is killed at 2 s and boots
// at 4 s; a role-aimed pause at 2.5 s found no holder; the outbox relay
// is killed at 1.5 s and boots at 1.8 s; heal at 5 s. Broker 1 leads
// group 1 in term 2 from 0.5 s to 6 s. Client 0's op 2 shows a violation
// found twice; the second violation names op 1 too.
func handRun() *runner.Result {
	plan := &faultplan.Plan{Seed: 9, Nodes: 9, DurationNs: 5 * s, Faults: []faultplan.FaultEvent{
		{AtNs: 1 * s, Kind: faultplan.FaultPartition, Node: 0, Peer: 1},
		{AtNs: s + s/2, Kind: faultplan.FaultKill, Node: 8, DurNs: 3 * s / 10},
		{AtNs: 2 * s, Kind: faultplan.FaultKill, Node: 1, DurNs: 2 * s, Torn: true},
		{AtNs: 2*s + s/2, Kind: faultplan.FaultPause, Role: "leader", DurNs: s},
		{AtNs: 3 * s, Kind: faultplan.FaultHealNet},
	}}
	trace := []world.TraceEvent{
		{AtNs: 0, Kind: world.EvBoot, Node: 0, Peer: -1}, {AtNs: 0, Kind: world.EvBoot, Node: 1, Peer: -1},
		{AtNs: 1 * s, Kind: world.EvFault, Node: 0, Peer: 1},
		{AtNs: s + s/2, Kind: world.EvFault, Node: 8, Peer: 0}, {AtNs: s + s/2, Kind: world.EvKill, Node: 8, Peer: -1},
		{AtNs: s + 8*s/10, Kind: world.EvBoot, Node: 8, Peer: -1},
		{AtNs: 2 * s, Kind: world.EvFault, Node: 1, Peer: 0}, {AtNs: 2 * s, Kind: world.EvKill, Node: 1, Peer: -1},
		{AtNs: 2*s + s/2, Kind: world.EvFault, Node: -1, Peer: 0},
		{AtNs: 3 * s, Kind: world.EvFault, Node: 0, Peer: 0},
		{AtNs: 4 * s, Kind: world.EvBoot, Node: 1, Peer: -1},
		{AtNs: 5 * s, Kind: world.EvHeal, Node: -1, Peer: -1},
	}
	scope := felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "order-events", Shard: 0}
	hist := &properties.History{Ops: []properties.HistoryOp{
		{ID: 1, Client: 0, Kind: properties.HistoryStateGet, Scope: scope, InvokeNs: s, CompleteNs: 2 * s, Outcome: properties.OutcomeOK},
		{ID: 2, Client: 0, Kind: properties.HistoryStateGet, Scope: scope, InvokeNs: s + s/2, CompleteNs: 3 * s, Outcome: properties.OutcomeOK},
	}}
	ev2 := runner.Evidence{Op: 2, Client: 0, Kind: "state_get", Outcome: "ok", InvokeNs: s + s/2, CompleteNs: 3 * s}
	ev1 := runner.Evidence{Op: 1, Client: 0, Kind: "state_get", Outcome: "ok", InvokeNs: s, CompleteNs: 2 * s, Brokers: []uint64{2}}
	return &runner.Result{Options: runner.Options{Brokers: 3, Clients: 4, Streams: 1, Shards: 1}, Seed: 9, Plan: plan, Trace: trace, History: hist,
		SimNs: 6 * s, Leadership: []runner.LeaderSpan{{Group: 1, Broker: 1, Term: 2, FromNs: s / 2, ToNs: 6 * s}},
		// Two checks found LinearizableRead: the second's earliest finding
		// (op 1, answered at 2 s) is the invariant's earliest.
		Violations: []runner.Violation{{Invariant: "LinearizableRead", Message: "first <finding>", First: "first <finding>", Findings: 1,
			Evidence: []runner.Evidence{ev2}, AtNs: 3 * s, When: runner.WhenOperations},
			{Invariant: "LinearizableRead", Message: "second; and 2 more", First: "second", Findings: 3, Evidence: []runner.Evidence{ev1}, AtNs: 2 * s, When: runner.WhenOperations},
			{Invariant: "StateMatchesLog", Message: "replica broker-1 differs", First: "replica broker-1 differs", Findings: 1, AtNs: 6 * s, When: runner.WhenEnd}}}
}

// find returns the bars of lane name with class c.
func find(m *Model, name, c string) []Bar {
	var out []Bar
	for _, l := range m.Lanes {
		if l.Name == name {
			for _, b := range l.Bars {
				if b.Class == c {
					out = append(out, b)
				}
			}
		}
	}
	return out
}

// TestBuildHandRun checks the model against the hand-written run's story.
func TestBuildHandRun(t *testing.T) {
	m := Build(handRun())
	if net := find(m, NetworkLane, "net"); len(net) != 2 || net[0].FromNs != s || net[0].ToNs != 3*s || !net[1].Instant {
		t.Fatalf("network bars %+v; want the partition 1-3 s and the healnet mark", net)
	}
	if cut := find(m, "broker 2", "net"); len(cut) != 1 || cut[0].FromNs != s || cut[0].Label != "partition broker 1, peer broker 2 at 1.000 s until 3.000 s" {
		t.Fatalf("broker 2's partition band %+v", cut)
	}
	if down := find(m, "broker 2", "down"); len(down) != 1 || down[0].FromNs != 2*s || down[0].ToNs != 4*s {
		t.Fatalf("broker 2 down %+v; want 2-4 s", down)
	}
	kill := find(m, "broker 2", "fault")
	if len(kill) != 1 || kill[0].Label != "kill broker 2 at 2.000 s for 2.000 s (torn writes)" || kill[0].ToNs != 4*s {
		t.Fatalf("broker 2's kill %+v", kill)
	}
	if len(find(m, "broker 1", "fault"))+len(find(m, "broker 3", "fault")) != 0 {
		t.Fatal("the skipped role pause must not be drawn")
	}
	if down := find(m, RelayLane, "down"); len(down) != 1 || down[0].FromNs != s+s/2 || down[0].ToNs != s+8*s/10 {
		t.Fatalf("relay down %+v; want 1.5-1.8 s", down)
	}
	if rk := find(m, RelayLane, "fault"); len(rk) != 1 || rk[0].Row != 1 || rk[0].Label != "kill outbox relay at 1.500 s for 0.300 s (unsynced writes lost)" {
		t.Fatalf("relay kill %+v; want one, on its second row", rk)
	}
	if lead := find(m, "broker 1", "leader"); len(lead) != 1 || lead[0].Row != 1 || lead[0].Label != "g1 t2" {
		t.Fatalf("leadership %+v", lead)
	}
	if len(m.Faults) != 4 {
		t.Fatalf("faults %+v; want 4 (the role pause had no holder)", m.Faults)
	}
	c := m.Clients
	if len(c) != 1 || len(c[0].Ops) != 2 || c[0].Ops[1].Invariant != "LinearizableRead" || c[0].Ops[0].Row == c[0].Ops[1].Row {
		t.Fatalf("client lanes %+v; want op 2 violating, apart from op 1", c)
	}
	f := m.Findings
	if len(f) != 2 || f[0].Findings != 4 || len(f[0].Evidence) != 1 || f[0].Evidence[0].Op != 1 || f[0].AtNs != 2*s ||
		!strings.HasPrefix(f[0].WhenText(), "at 2.000 s, when the operations") || f[0].Text != "second" ||
		len(f[0].Brokers) != 1 || f[0].Brokers[0] != "broker 2" {
		t.Fatalf("findings %+v; want LinearizableRead's earliest of 4 findings, op 1, at 2 s, naming broker 2", f)
	}
	if f[1].AtNs != 6*s || !strings.Contains(f[1].WhenText(), "the run's end: found by the end checks") {
		t.Fatalf("an end-check finding without operations: %+v, %s", f[1], f[1].WhenText())
	}
}

// TestReplacedBrokerKeepsItsRow: a broker that rejoined under a new raft
// id keeps its row: its later leadership terms are drawn there, and the
// page says which ids it ran as.
func TestReplacedBrokerKeepsItsRow(t *testing.T) {
	res := handRun()
	res.Replaced = []runner.Replacement{{Slot: 1, Old: 2, New: 9, AtNs: 4 * s}}
	res.Leadership = append(res.Leadership, runner.LeaderSpan{Group: 1, Broker: 9, Term: 3, FromNs: 5 * s, ToNs: 6 * s},
		runner.LeaderSpan{Group: 1, Broker: 16, Term: 4, FromNs: 5 * s, ToNs: 6 * s})
	m := Build(res)
	lead := find(m, "broker 2", "leader")
	if len(lead) != 1 || lead[0].Label != "g1 t3" || !strings.HasPrefix(lead[0].Title, "broker 2 (raft id 9) leads group 1") {
		t.Fatalf("broker 2's leadership %+v; want raft id 9's term 3", lead)
	}
	notes := strings.Join(m.Notes, "\n")
	if !strings.Contains(notes, "broker 2 ran as raft id 2, then 9 from 4.000 s") || !strings.Contains(notes, "1 leadership terms of raft ids with no broker row") {
		t.Fatalf("notes %q", notes)
	}
}
