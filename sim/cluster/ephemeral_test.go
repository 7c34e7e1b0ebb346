package cluster

import (
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/wire"
)

// The seeds: "An ephemeral stream refuses commits, because there is no log
// to hold them." An ephemeral publish reaches the subscribers live at
// that moment and nothing is kept.

func ephemeralStreams() []node.StreamSpec {
	s := DefaultStreams(1)
	return append(s, node.StreamSpec{Namespace: "orders", Stream: "ticks", Shards: 1, Kind: statemachine.StreamEphemeral,
		RetainedLenMax: 16, ReplayWindowLenMax: 16, GroupsMax: 1, LeasesPerGroupMax: 1})
}

func TestEphemeralStream(t *testing.T) {
	writer, ws := NewProbe("writer")
	live, ls := NewProbe("live")
	late, lt := NewProbe("late")
	c, err := New(Config{Seed: 5, Streams: ephemeralStreams(), Extra: []world.NodeSpec{ws, ls, lt}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	sc := felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "ticks"}
	group := c.RaftGroupOf(sc.Namespace, sc.Stream, 0)
	ask := func(p *Probe, body wire.RequestBody) wire.AnswerBody {
		t.Helper()
		a, err := p.Call(c, group, &wire.Request{Scope: sc, Body: body}, 10*secondNs)
		if err != nil {
			t.Fatal(err)
		}
		return a.Body
	}
	read := func(p *Probe) []felix.Entry {
		t.Helper()
		es, ok := ask(p, &wire.SubscribeRead{MaxEntries: 16}).(*wire.Entries)
		if !ok {
			t.Fatal("subscribe read not answered with entries")
		}
		return es.Entries
	}
	if got := read(live); len(got) != 0 {
		t.Fatalf("a new subscriber got %d entries", len(got))
	}
	if _, ok := ask(writer, &wire.Publish{Record: felix.Record{Event: felix.EventPublish, Payload: []byte("tick-1")}}).(*wire.Acked); !ok {
		t.Fatal("ephemeral publish not acked")
	}
	if got := read(live); len(got) != 1 || string(got[0].Record.Payload) != "tick-1" {
		t.Fatalf("the live subscriber got %v, want tick-1", got)
	}
	if got := read(late); len(got) != 0 {
		t.Fatalf("a subscriber that came after the publish got %v", got)
	}
	refused := []wire.RequestBody{
		&wire.Commit{Record: commitRecord("k", "v")},
		&wire.CommitIf{Record: felix.Record{Event: felix.EventPublish, Conditional: true, Ops: commitRecord("k", "v").Ops}},
		&wire.StateGet{Key: "k"},
		&wire.Enqueue{Record: felix.Record{Event: felix.EventEnqueue}},
		&wire.GroupFetch{Group: "g", MaxEntries: 1, LeaseNs: 1e9},
	}
	for _, body := range refused {
		e, ok := ask(writer, body).(*wire.Error)
		if !ok || e.Code != wire.CodeEphemeralStream {
			t.Fatalf("%s on an ephemeral stream: %v, want EphemeralStream", body.Kind(), e)
		}
		t.Logf("%s refused: %s", body.Kind(), e.Message)
	}
	// Nothing was written: no replica holds a scope of the ephemeral
	// stream, in memory or (after every broker restarts) in its store.
	check := func(when string) {
		for _, r := range c.Snapshot().Replicas {
			if n := len(r.RaftGroups[group-node.MetaGroup].Scopes); n != 0 {
				t.Fatalf("%s: broker %d holds %d scopes of the ephemeral stream", when, r.Node, n)
			}
		}
	}
	check("before restart")
	for id := uint64(1); id <= 3; id++ {
		c.World.Kill(SimID(id), false, 1)
	}
	if err := c.World.RunUntil(c.AllLed, 20*secondNs); err != nil {
		t.Fatal(err)
	}
	check("after every broker restarted")
	if got := read(live); len(got) != 0 {
		t.Fatalf("after a restart the subscriber got %v replayed", got)
	}
}
