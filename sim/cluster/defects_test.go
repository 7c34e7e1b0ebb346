package cluster

import (
	"fmt"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/wire"
)

// readAfterAck is the read half of linearizability for one key: a state
// read issued after a commit's acknowledgement at ackOffset must return a
// version >= ackOffset. Refusals (NotLeader, Unavailable) are allowed.
func readAfterAck(ans wire.AnswerBody, ackOffset uint64) error {
	sv, ok := ans.(*wire.StateValue)
	if !ok {
		return nil
	}
	if !sv.Found || sv.Version < ackOffset {
		return fmt.Errorf("stale read: state_get after an ack at offset %d returned found=%v version %d", ackOffset, sv.Found, sv.Version)
	}
	return nil
}

// staleReadScenario partitions a follower from the other brokers, commits
// through the leader, then reads from the partitioned follower directly.
func staleReadScenario(t *testing.T, defects node.Defects) error {
	p, spec := NewProbe("probe")
	c, err := New(Config{Seed: 31, Extra: []world.NodeSpec{spec}, Defects: defects})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	sc := acmeScope(2)
	group := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
	commit := func(v string) uint64 {
		rec := felix.Record{Event: felix.EventPublish, Payload: []byte(v), Ops: []felix.StateOp{{Kind: felix.OpPut, Key: "k", Value: []byte(v)}}}
		w, ok := call(t, c, p, &wire.Request{Scope: sc, Body: &wire.Commit{Record: rec}}).(*wire.Written)
		if !ok {
			t.Fatal("commit not written")
		}
		return w.Offset
	}
	commit("v0")
	c.World.RunFor(secondNs / 10)
	lead, _ := c.Leader(group)
	follower := lead%uint64(c.Brokers()) + 1
	for b := uint64(1); b <= uint64(c.Brokers()); b++ {
		if b != follower {
			c.World.Partition(SimID(follower), SimID(b))
		}
	}
	ack := commit("v1")
	id := p.Send(follower, &wire.Request{Scope: sc, Body: &wire.StateGet{Key: "k"}})
	var ans *wire.Answer
	if err := c.World.RunUntil(func() (bool, string) { a, ok := p.Take(id); ans = a; return ok, "read answer" }, secondNs); err != nil {
		t.Fatal(err)
	}
	return readAfterAck(ans.Body, ack)
}

// TestStaleReadDefectIsCaught: the read check passes on the correct broker
// (a follower refuses with NotLeader) and catches the planted defect that
// serves reads locally without ReadIndex.
func TestStaleReadDefectIsCaught(t *testing.T) {
	if err := staleReadScenario(t, node.Defects{}); err != nil {
		t.Fatalf("correct broker: %v", err)
	}
	err := staleReadScenario(t, node.Defects{StateReadWithoutReadIndex: true})
	if err == nil {
		t.Fatal("the stale-read defect went unnoticed")
	}
	t.Logf("planted defect caught: %v", err)
}

// conditionalLanded is the ConditionalWrites rule for one answer: a
// written commit_if lands exactly at its expected offset.
func conditionalLanded(expected uint64, ans wire.AnswerBody) error {
	if w, ok := ans.(*wire.Written); ok && w.Offset != expected {
		return fmt.Errorf("commit_if expecting offset %d was written at %d", expected, w.Offset)
	}
	return nil
}

// racingCommitIfs sends two commit_ifs expecting the same tail to the
// leader at once and checks both answers.
func racingCommitIfs(t *testing.T, defects node.Defects) error {
	p, spec := NewProbe("probe")
	c, err := New(Config{Seed: 41, Extra: []world.NodeSpec{spec}, Defects: defects})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.World.RunUntil(c.AllLed, 10*secondNs); err != nil {
		t.Fatal(err)
	}
	sc := acmeScope(1)
	lead, _ := c.Leader(c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard))
	var ids []uint64
	for _, v := range []string{"a", "b"} {
		rec := felix.Record{Event: felix.EventPublish, Payload: []byte(v), Conditional: true, ExpectedOffset: 0,
			Ops: []felix.StateOp{{Kind: felix.OpPut, Key: "owner", Value: []byte(v)}}}
		ids = append(ids, p.Send(lead, &wire.Request{Scope: sc, Body: &wire.CommitIf{Record: rec}}))
	}
	written := 0
	for _, id := range ids {
		var ans *wire.Answer
		if err := c.World.RunUntil(func() (bool, string) { a, ok := p.Take(id); ans = a; return ok, "answer" }, secondNs); err != nil {
			t.Fatal(err)
		}
		if err := conditionalLanded(0, ans.Body); err != nil {
			return err
		}
		if _, ok := ans.Body.(*wire.Written); ok {
			written++
		}
	}
	if written != 1 {
		t.Fatalf("%d of two racing commit_ifs written, want exactly 1", written)
	}
	return nil
}

// TestCommitIfAtProposalDefectIsCaught: racing commit_ifs on the correct
// broker give one Written at the expected offset and one Refused; with the
// check moved to proposal time both are written, one off its offset.
func TestCommitIfAtProposalDefectIsCaught(t *testing.T) {
	if err := racingCommitIfs(t, node.Defects{}); err != nil {
		t.Fatalf("correct broker: %v", err)
	}
	err := racingCommitIfs(t, node.Defects{CommitIfCheckedAtProposal: true})
	if err == nil {
		t.Fatal("the commit_if-at-proposal defect went unnoticed")
	}
	t.Logf("planted defect caught: %v", err)
}
