package timeline

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim"
	"github.com/felixsim/felixsim/sim/runner"
)

const s = int64(1e9)

// handRun is a run written by hand: 3 brokers; broker 1 (node 0) is cut
// from broker 2 at 1 s until a healnet at 3 s; broker 2 (node 1) is
// killed at 2 s and boots at 4 s; a role-aimed pause at 2.5 s found no
// holder; the outbox relay (node 8) is killed at 1.5 s and boots at
// 1.8 s; heal at 5 s. Broker 1 leads group 1 in term 2 from 0.5 s to
// 6 s. Client 0's op 2 shows a violation found twice.
func handRun() *runner.Result {
	plan := &sim.Plan{Seed: 9, Nodes: 9, DurationNs: 5 * s, Faults: []sim.FaultEvent{
		{AtNs: 1 * s, Kind: sim.FaultPartition, Node: 0, Peer: 1},
		{AtNs: s + s/2, Kind: sim.FaultKill, Node: 8, DurNs: 3 * s / 10},
		{AtNs: 2 * s, Kind: sim.FaultKill, Node: 1, DurNs: 2 * s},
		{AtNs: 2*s + s/2, Kind: sim.FaultPause, Role: "leader", DurNs: s},
		{AtNs: 3 * s, Kind: sim.FaultHealNet},
	}}
	trace := []sim.TraceEvent{
		{AtNs: 0, Kind: sim.EvBoot, Node: 0, Peer: -1}, {AtNs: 0, Kind: sim.EvBoot, Node: 1, Peer: -1},
		{AtNs: 1 * s, Kind: sim.EvFault, Node: 0, Peer: 1},
		{AtNs: s + s/2, Kind: sim.EvFault, Node: 8, Peer: 0}, {AtNs: s + s/2, Kind: sim.EvKill, Node: 8, Peer: -1},
		{AtNs: s + 8*s/10, Kind: sim.EvBoot, Node: 8, Peer: -1},
		{AtNs: 2 * s, Kind: sim.EvFault, Node: 1, Peer: 0}, {AtNs: 2 * s, Kind: sim.EvKill, Node: 1, Peer: -1},
		{AtNs: 2*s + s/2, Kind: sim.EvFault, Node: -1, Peer: 0},
		{AtNs: 3 * s, Kind: sim.EvFault, Node: 0, Peer: 0},
		{AtNs: 4 * s, Kind: sim.EvBoot, Node: 1, Peer: -1},
		{AtNs: 5 * s, Kind: sim.EvHeal, Node: -1, Peer: -1},
	}
	scope := felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "order-events", Shard: 0}
	hist := &properties.History{Ops: []properties.HistoryOp{
		{ID: 1, Client: 0, Kind: properties.HistoryStateGet, Scope: scope, InvokeNs: s, CompleteNs: 2 * s, Outcome: properties.OutcomeOK},
		{ID: 2, Client: 0, Kind: properties.HistoryStateGet, Scope: scope, InvokeNs: s + s/2, CompleteNs: 3 * s, Outcome: properties.OutcomeOK},
	}}
	ev := []runner.Evidence{{Op: 2, Client: 0, Kind: "state_get", InvokeNs: s + s/2, CompleteNs: 3 * s}}
	return &runner.Result{Options: runner.Options{Brokers: 3, Streams: 1, Shards: 1}, Seed: 9, Plan: plan, Trace: trace, History: hist,
		SimNs: 6 * s, Leadership: []runner.LeaderSpan{{Group: 1, Broker: 1, Term: 2, FromNs: s / 2, ToNs: 6 * s}},
		Violations: []runner.Violation{{Invariant: "LinearizableRead", Message: "first <finding>"}, {Invariant: "LinearizableRead", Message: "second", Evidence: ev}}}
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
	if net := find(m, "network", "net"); len(net) != 2 || net[0].FromNs != s || net[0].ToNs != 3*s || !strings.HasPrefix(net[0].Label, "partition") || !net[1].Instant {
		t.Fatalf("network bars %+v; want the partition 1-3 s and the healnet mark", net)
	}
	if cut := find(m, "broker 2", "net"); len(cut) != 1 || cut[0].FromNs != s {
		t.Fatalf("broker 2's partition band %+v", cut)
	}
	if down := find(m, "broker 2", "down"); len(down) != 1 || down[0].FromNs != 2*s || down[0].ToNs != 4*s {
		t.Fatalf("broker 2 down %+v; want 2-4 s", down)
	}
	if len(find(m, "broker 1", "fault"))+len(find(m, "broker 2", "fault"))+len(find(m, "broker 3", "fault")) != 1 {
		t.Fatal("want exactly one kill mark: the skipped role pause must not be drawn")
	}
	if down := find(m, RelayLane, "down"); len(down) != 1 || down[0].FromNs != s+s/2 || down[0].ToNs != s+8*s/10 {
		t.Fatalf("relay down %+v; want 1.5-1.8 s", down)
	}
	if kill := find(m, RelayLane, "fault"); len(kill) != 1 || kill[0].Row != 1 || !strings.HasPrefix(kill[0].Label, "kill") {
		t.Fatalf("relay kill mark %+v; want one, on its second row", kill)
	}
	if lead := find(m, "broker 1", "leader"); len(lead) != 1 || lead[0].Row != 1 || lead[0].Label != "g1 t2" {
		t.Fatalf("leadership %+v", lead)
	}
	bad := find(m, "client 0", "violating")
	if len(bad) != 1 || bad[0].ID != "op-2" || !strings.HasPrefix(bad[0].Title, "LinearizableRead") {
		t.Fatalf("violating bars %+v", bad)
	}
	if ok := find(m, "client 0", "op-ok"); len(ok) != 1 || ok[0].Row == bad[0].Row {
		t.Fatalf("overlapping ops share a row: %+v %+v", ok, bad)
	}
	if len(m.Findings) != 1 || len(m.Findings[0].Evidence) != 1 || !strings.Contains(m.Findings[0].Message, "1 more finding") {
		t.Fatalf("findings %+v; want LinearizableRead once, with the second finding's evidence", m.Findings)
	}
}

// TestPageSelfContained: the page loads nothing from elsewhere (no src,
// href or url() but in-page anchors and the SVG namespace) and escapes
// the messages it shows.
func TestPageSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, handRun()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, m := range regexp.MustCompile(`(?i)(src=|href=|url\(|@import)[^ >]*`).FindAllString(page, -1) {
		if !strings.HasPrefix(m, `href="#`) {
			t.Errorf("outside reference %q", m)
		}
	}
	if strings.Contains(page, "<finding>") || !strings.Contains(page, "first &lt;finding&gt;") || !strings.Contains(page, `id="op-2"`) {
		t.Fatal("message not escaped or violating op missing")
	}
}
