package runner

import (
	"fmt"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/tla"
	"github.com/felixsim/felixsim/wire"
)

// TestTraceOfMidRunFinalizeIsValid: the brokers' own proposals (the
// atomic_commit marker each shard leader carries into its log after a
// mid-run finalization, a retention-by-age drop) are steps the model
// allows. A broker proposes them itself, for no client, so the trace names
// them as the operator's; before, their entries were "no client's write"
// and every run that finalized mid-run failed TraceNotInModel.
func TestTraceOfMidRunFinalizeIsValid(t *testing.T) {
	v := tla.NewTraceValidator(BrokersDefault)
	p, spec := cluster.NewProbe("probe")
	streams := cluster.DefaultStreams(1)
	streams[0].RetainedAgeMaxNs = 2_000_000_000
	c, err := cluster.New(cluster.Config{Seed: 5, Extra: []world.NodeSpec{spec}, NotFinalized: true, Streams: streams, Trace: v})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.World.RunUntil(c.AllLed, 10e9); err != nil {
		t.Fatal(err)
	}
	if a, err := p.Admin(c, &node.AdminRequest{Kind: node.AdminFinalize, Feature: node.FeatureAtomicCommit}, 20e9); err != nil {
		t.Fatal(err)
	} else if _, ok := a.Body.(*wire.Acked); !ok {
		t.Fatalf("finalize: %v", a.Body)
	}
	sc := felix.Scope{Tenant: "acme", Namespace: streams[0].Namespace, Stream: streams[0].Stream, Shard: 0}
	group := c.RaftGroupOf(sc.Namespace, sc.Stream, sc.Shard)
	written := 0
	for i := 0; i < 40 && written < 5; i++ {
		rec := felix.Record{Event: felix.EventPublish, Payload: []byte(fmt.Sprintf("e%d", i)),
			Ops: []felix.StateOp{{Kind: felix.OpPut, Key: "k", Value: []byte(fmt.Sprintf("v%d", i))}}}
		a, err := p.Call(c, group, &wire.Request{Scope: sc, Body: &wire.Commit{Record: rec}}, 5e9)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := a.Body.(*wire.Written); ok {
			written++
		}
		c.World.RunFor(5e8)
	}
	if written == 0 {
		t.Fatal("no commit was written after the mid-run finalization")
	}
	c.World.RunFor(5e9) // retention by age proposes its drops
	dropped := false
	for _, r := range c.Snapshot().Replicas {
		for _, sv := range r.RaftGroups[group-node.MetaGroup].Scopes {
			dropped = dropped || (sv.Scope.Tenant == "acme" && sv.Shard.FirstOffset > 0)
		}
	}
	if !dropped {
		t.Fatal("retention by age dropped nothing: its proposals were not exercised")
	}
	res := v.Result()
	if !res.Valid {
		t.Fatalf("trace of a mid-run finalization rejected: %v", res.Rejection)
	}
	if res.Steps < 100 {
		t.Fatalf("only %d steps validated", res.Steps)
	}
}
