package node

import (
	"testing"
	"testing/cryptotest"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/vfs"
	"github.com/felixsim/felixsim/wire"
)

// fakeHost is a one-node world: a manual clock and the answers sent.
type fakeHost struct {
	nowNs   int64
	answers []*wire.Answer
	peers   int
}

func (h *fakeHost) NowNs() int64                     { return h.nowNs }
func (h *fakeHost) SendPeer(to uint64, b *PeerBatch) { h.peers++ }
func (h *fakeHost) SendAnswer(to uint64, a *wire.Answer) {
	h.answers = append(h.answers, a)
}

func testStreams() []StreamSpec {
	return []StreamSpec{{Namespace: "orders", Stream: "order-events", Shards: 2, Kind: statemachine.StreamQuorum,
		RetainedLenMax: 64, ReplayWindowLenMax: 64, GroupsMax: 4, LeasesPerGroupMax: 8}}
}

func testConfig(fs vfs.FS) Config {
	return Config{ID: 1, Peers: []uint64{1}, FS: fs, TickNs: 10_000_000, ElectionTicks: 10, HeartbeatTicks: 1,
		Bootstrap:        Bootstrap{Streams: testStreams(), FinalizedFeatures: []string{FeatureAtomicCommit}, SoftwareVersion: 2},
		PendingWritesMax: 4, PendingReadsMax: 4, PendingTimeoutNs: 1_000_000_000}
}

// openLeader opens a single-broker node and ticks it until it leads every group.
func openLeader(t *testing.T, fs vfs.FS, h *fakeHost) *Node {
	t.Helper()
	cryptotest.SetGlobalRandom(t, 1)
	n, err := Open(testConfig(fs), h, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		h.nowNs += 10_000_000
		n.Tick()
	}
	for g := uint64(1); g <= uint64(n.RaftGroups()); g++ {
		if _, leader := n.Leader(g); !leader {
			t.Fatalf("group %d has no leader after 100 ticks", g)
		}
	}
	return n
}

// ask sends one request and returns the answer it produced at once.
func ask(t *testing.T, n *Node, h *fakeHost, req *wire.Request) wire.AnswerBody {
	t.Helper()
	before := len(h.answers)
	n.HandleRequest(99, req)
	if len(h.answers) != before+1 {
		t.Fatalf("request %+v produced %d answers", req, len(h.answers)-before)
	}
	return h.answers[before].Body
}

func scope(shard uint32) felix.Scope {
	return felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "order-events", Shard: shard}
}

func pub(payload string) felix.Record {
	return felix.Record{Event: felix.EventPublish, Payload: []byte(payload)}
}

// TestRequestsRefusedWithClearErrors: malformed or misrouted requests get
// an error answer naming the problem, never a panic and never a write.
func TestRequestsRefusedWithClearErrors(t *testing.T) {
	h := &fakeHost{}
	n := openLeader(t, vfs.NewMem(), h)
	withOps := pub("x")
	withOps.Ops = []felix.StateOp{{Kind: felix.OpPut, Key: "k", Value: []byte("v")}}
	cond := pub("x")
	cond.Conditional, cond.ExpectedOffset = true, 3
	cases := []struct {
		name string
		req  *wire.Request
		code wire.ErrorCode
	}{
		{"no body", &wire.Request{Scope: scope(0)}, wire.CodeInvalidRequest},
		{"empty tenant", &wire.Request{Scope: felix.Scope{Namespace: "orders", Stream: "order-events"}, Body: &wire.Publish{Record: pub("x")}}, wire.CodeInvalidRequest},
		{"unknown stream", &wire.Request{Scope: felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "nope"}, Body: &wire.Publish{Record: pub("x")}}, wire.CodeUnknownStream},
		{"shard out of range", &wire.Request{Scope: scope(2), Body: &wire.Publish{Record: pub("x")}}, wire.CodeUnknownStream},
		{"publish with ops", &wire.Request{Scope: scope(0), Body: &wire.Publish{Record: withOps}}, wire.CodeInvalidRequest},
		{"publish carrying a condition", &wire.Request{Scope: scope(0), Body: &wire.Publish{Record: cond}}, wire.CodeInvalidRequest},
		{"enqueue with a publish event", &wire.Request{Scope: scope(0), Body: &wire.Enqueue{Record: pub("x")}}, wire.CodeInvalidRequest},
		{"commit_if without a condition", &wire.Request{Scope: scope(0), Body: &wire.CommitIf{Record: withOps}}, wire.CodeInvalidRequest},
		{"invalid event", &wire.Request{Scope: scope(0), Body: &wire.Commit{Record: felix.Record{}}}, wire.CodeInvalidRequest},
		{"empty state key", &wire.Request{Scope: scope(0), Body: &wire.StateGet{}}, wire.CodeInvalidRequest},
		{"zero-entry read", &wire.Request{Scope: scope(0), Body: &wire.SubscribeRead{}}, wire.CodeInvalidRequest},
		{"zero lease", &wire.Request{Scope: scope(0), Body: &wire.GroupFetch{Group: "g", MaxEntries: 1}}, wire.CodeInvalidRequest},
		{"ack of an unknown group", &wire.Request{Scope: scope(0), Body: &wire.GroupAck{Group: "g", Offset: 0}}, wire.CodeInvalidRequest},
	}
	for _, tc := range cases {
		var body wire.AnswerBody
		if tc.name == "ack of an unknown group" {
			n.HandleRequest(99, tc.req) // answered at apply
			body = h.answers[len(h.answers)-1].Body
		} else {
			body = ask(t, n, h, tc.req)
		}
		e, ok := body.(*wire.Error)
		if !ok || e.Code != tc.code || e.Message == "" {
			t.Errorf("%s: answer %#v, want %s with a message", tc.name, body, tc.code)
		}
	}
	for _, v := range n.ReplicaState().RaftGroups {
		for _, s := range v.Scopes {
			if s.Shard.NextOffset != 0 {
				t.Fatalf("a refused request wrote to %s", s.Scope)
			}
		}
	}
}

// TestSingleNodeWriteReadRestart: a write is answered after apply, a state
// read through ReadIndex sees it, and a reopened node rebuilds the shard
// from its store alone.
func TestSingleNodeWriteReadRestart(t *testing.T) {
	fs := vfs.NewMem()
	h := &fakeHost{}
	n := openLeader(t, fs, h)
	rec := pub("e0")
	rec.Ops = []felix.StateOp{{Kind: felix.OpPut, Key: "k", Value: []byte("v")}}
	if w, ok := ask(t, n, h, &wire.Request{ID: 1, Scope: scope(1), Body: &wire.Commit{Record: rec}}).(*wire.Written); !ok || w.Offset != 0 {
		t.Fatalf("commit: %v", w)
	}
	sv, ok := ask(t, n, h, &wire.Request{ID: 2, Scope: scope(1), Body: &wire.StateGet{Key: "k"}}).(*wire.StateValue)
	if !ok || !sv.Found || sv.Version != 0 || string(sv.Value) != "v" {
		t.Fatalf("state_get: %+v", sv)
	}
	before := n.ReplicaState()
	progress := n.AppendGroupProgress([]GroupProgress{{ID: 99}})
	if len(progress) != len(before.RaftGroups)+1 || progress[0].ID != 99 {
		t.Fatalf("AppendGroupProgress after one kept row: %+v for %d groups", progress, len(before.RaftGroups))
	}
	for i, g := range before.RaftGroups {
		if p := progress[i+1]; p != (GroupProgress{ID: g.ID, Commit: g.Commit, Applied: g.Applied}) || p.Commit == 0 {
			t.Fatalf("AppendGroupProgress[%d] = %+v, ReplicaState has group %d commit %d applied %d", i, p, g.ID, g.Commit, g.Applied)
		}
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	h2 := &fakeHost{nowNs: h.nowNs}
	n2 := openLeader(t, fs, h2)
	after := n2.ReplicaState()
	b, a := before.RaftGroups[2].Scopes, after.RaftGroups[2].Scopes
	if len(a) != 1 || len(b) != 1 || a[0].Shard.Digest() != b[0].Shard.Digest() {
		t.Fatalf("rebuilt scopes %+v differ from %+v", a, b)
	}
	if after.RaftGroups[2].Applied < before.RaftGroups[2].Applied {
		t.Fatalf("applied index went back from %d to %d", before.RaftGroups[2].Applied, after.RaftGroups[2].Applied)
	}
}

// TestPendingWritesCapAndTimeout: writes beyond PendingWritesMax are refused
// with Unavailable; pending writes expire after the pending timeout.
func TestPendingWritesCapAndTimeout(t *testing.T) {
	p := newPendingWrites(1)
	for i := uint64(1); i <= 3; i++ {
		p.add(&pendingWrite{seq: i, arrivedTick: i})
	}
	if p.take(2, 1) != nil {
		t.Fatal("a write of another incarnation matched")
	}
	if w := p.take(1, 2); w == nil || w.seq != 2 {
		t.Fatal("take(2) missed")
	}
	p.expire(12, 10) // seq 1 arrived at tick 1: 11 ticks ago
	if p.len() != 1 || p.take(1, 3) == nil {
		t.Fatalf("after expiry %d pending, want seq 3 only", p.len())
	}
}

// TestConfigValidate: bad configs are refused with ErrInvalidConfig.
func TestConfigValidate(t *testing.T) {
	good := testConfig(vfs.NewMem())
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*Config){
		"no peers":         func(c *Config) { c.Peers = nil },
		"id not a peer":    func(c *Config) { c.ID = 9 },
		"unsorted peers":   func(c *Config) { c.Peers = []uint64{2, 1}; c.ID = 1 },
		"nil fs":           func(c *Config) { c.FS = nil },
		"heartbeat >= el":  func(c *Config) { c.HeartbeatTicks = 10 },
		"zero pending":     func(c *Config) { c.PendingWritesMax = 0 },
		"zero shards":      func(c *Config) { c.Bootstrap.Streams = []StreamSpec{{Namespace: "a", Stream: "b"}} },
		"duplicate stream": func(c *Config) { c.Bootstrap.Streams = append(testStreams(), testStreams()...) },
	} {
		c := testConfig(vfs.NewMem())
		mutate(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestPendingReads: a read is served only once its index is confirmed and
// applied; takeGroup empties one group; contexts of other incarnations
// are ignored.
func TestPendingReads(t *testing.T) {
	p := newPendingReads(7)
	p.add(&pendingRead{seq: 1, group: 2})
	p.add(&pendingRead{seq: 2, group: 3})
	p.confirm(p.readContext(1), 10)
	other := newPendingReads(8)
	p.confirm(other.readContext(2), 1) // another incarnation's context
	if got := p.takeReady(2, 9); len(got) != 0 {
		t.Fatalf("read served before its index 10 was applied: %v", got)
	}
	if got := p.takeReady(2, 10); len(got) != 1 || got[0].seq != 1 {
		t.Fatalf("takeReady = %v, want seq 1", got)
	}
	if got := p.takeReady(3, 100); len(got) != 0 {
		t.Fatal("a read confirmed by another incarnation's context was served")
	}
	if got := p.takeGroup(3); len(got) != 1 || p.len() != 0 {
		t.Fatalf("takeGroup = %v, %d left", got, p.len())
	}
}

// TestHandlePeerDropsBadMessages: empty messages, unknown groups,
// misaddressed messages and raft-local message types are dropped with a
// log line, never a panic.
func TestHandlePeerDropsBadMessages(t *testing.T) {
	h := &fakeHost{}
	n := openLeader(t, vfs.NewMem(), h)
	before := len(n.Logger().Lines())
	n.HandlePeer(&PeerBatch{From: 2, Msgs: []GroupMessage{
		{Group: 2},
		{Group: 99, Msg: &raftpb.Message{Type: raftpb.MessageType_MsgHeartbeat.Enum(), To: new(uint64(1)), From: new(uint64(2))}},
		{Group: 2, Msg: &raftpb.Message{Type: raftpb.MessageType_MsgHeartbeat.Enum(), To: new(uint64(3)), From: new(uint64(2))}},
		{Group: 2, Msg: &raftpb.Message{Type: raftpb.MessageType_MsgHup.Enum(), To: new(uint64(1)), From: new(uint64(2))}},
	}})
	if got := len(n.Logger().Lines()) - before; got != 4 {
		t.Fatalf("%d log lines for 4 dropped messages: %v", got, n.Logger().Lines())
	}
	if n.Failed() != nil {
		t.Fatal(n.Failed())
	}
}

// TestHasWork: with HostProcesses, an input that gives raft something to
// do (a write) shows as work until Process runs, and when HasWork says
// none, Process persists, sends and answers nothing — what lets a host
// skip the batch window after an idle tick.
func TestHasWork(t *testing.T) {
	cryptotest.SetGlobalRandom(t, 1)
	h := &fakeHost{}
	cfg := testConfig(vfs.NewMem())
	cfg.HostProcesses = true
	n, err := Open(cfg, h, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		h.nowNs += cfg.TickNs
		n.Tick()
		n.Process()
	}
	if _, leader := n.Leader(RaftGroupOf(testStreams(), "orders", "order-events", 0)); !leader {
		t.Fatal("no leader after 100 ticks")
	}
	if n.HasWork() {
		t.Fatal("work left right after Process")
	}
	idle := 0
	for i := 0; i < 20; i++ {
		h.nowNs += cfg.TickNs
		n.Tick()
		if n.HasWork() {
			n.Process()
			continue
		}
		idle++
		before, answers, peers := n.Stats(), len(h.answers), h.peers
		n.Process()
		after := n.Stats()
		if after.Rounds != before.Rounds || after.Commits != before.Commits || len(h.answers) != answers || h.peers != peers {
			t.Fatalf("tick %d: no work, yet Process ran %d rounds, %d commits, %d answers, %d peer batches",
				i, after.Rounds-before.Rounds, after.Commits-before.Commits, len(h.answers)-answers, h.peers-peers)
		}
	}
	if idle == 0 {
		t.Fatal("every idle tick of a lone leader showed work")
	}
	n.HandleRequest(99, &wire.Request{ID: 1, Scope: scope(0), Body: &wire.Publish{Record: pub("x")}})
	if !n.HasWork() || len(h.answers) != 0 {
		t.Fatalf("a proposed write shows no work (answers %d)", len(h.answers))
	}
	n.Process()
	if n.HasWork() || len(h.answers) != 1 {
		t.Fatalf("after Process: work %v, %d answers, want none and 1", n.HasWork(), len(h.answers))
	}
	if w, ok := h.answers[0].Body.(*wire.Written); !ok || w.Offset != 0 {
		t.Fatalf("answer %+v, want Written{0}", h.answers[0].Body)
	}
}

// TestUnderscoreTenantsAreOrdinary: the store keeps no bookkeeping under
// tenant names any more, so tenants named like the old reserved ones
// ("_raft", "_groups") are served like any other, and their consumer
// groups survive a restart in the consumer-group table.
func TestUnderscoreTenantsAreOrdinary(t *testing.T) {
	fs := vfs.NewMem()
	h := &fakeHost{}
	n := openLeader(t, fs, h)
	raftScope, groupsScope := scope(0), scope(0)
	raftScope.Tenant, groupsScope.Tenant = "_raft", "_groups"
	if w, ok := ask(t, n, h, &wire.Request{ID: 1, Scope: raftScope, Body: &wire.Publish{Record: pub("r0")}}).(*wire.Written); !ok || w.Offset != 0 {
		t.Fatalf("publish under _raft: %v", w)
	}
	for i := uint64(0); i < 2; i++ {
		rec := felix.Record{Event: felix.EventEnqueue, Payload: []byte("job")}
		if w, ok := ask(t, n, h, &wire.Request{ID: 2 + i, Scope: groupsScope, Body: &wire.Enqueue{Record: rec}}).(*wire.Written); !ok || w.Offset != i {
			t.Fatalf("enqueue %d under _groups: %v", i, w)
		}
	}
	fetch := func(n *Node, h *fakeHost, id uint64) []felix.Entry {
		d, ok := ask(t, n, h, &wire.Request{ID: id, Scope: groupsScope, Body: &wire.GroupFetch{Group: "g", MaxEntries: 1, LeaseNs: 1e12}}).(*wire.Deliveries)
		if !ok {
			t.Fatalf("fetch under _groups: %v", d)
		}
		return d.Entries
	}
	if e := fetch(n, h, 4); len(e) != 1 || e[0].Offset != 0 {
		t.Fatalf("first fetch delivered %+v, want offset 0", e)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	h2 := &fakeHost{nowNs: h.nowNs}
	n2 := openLeader(t, fs, h2)
	// Offset 0 is still leased: the restored group delivers offset 1 next.
	if e := fetch(n2, h2, 5); len(e) != 1 || e[0].Offset != 1 {
		t.Fatalf("fetch after restart delivered %+v, want offset 1: the consumer group was not restored", e)
	}
}
