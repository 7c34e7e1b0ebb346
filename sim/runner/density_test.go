package runner

import (
	"testing"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
)

// TestDensityOfAFaultFreeRun: without faults every broker ticks every
// TickNs for the whole run, hosts every shard group (the live stream's
// too) and the metadata group, and proposed at least once per write answered Written (each is
// a distinct applied proposal); the same seed counts the same density.
func TestDensityOfAFaultFreeRun(t *testing.T) {
	none, err := ParseFaults("none")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Seed: 4, DurationNs: 2e9, Faults: none, KeepHistory: true}
	res, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Density
	if !res.OK() {
		t.Fatalf("fault-free run failed:\n%s", res.Summary())
	}
	ticksWant := float64(res.SimNs) / cluster.TickNsDefault // per broker
	groups := StreamsDefault*ShardsDefault + LiveShards + 1
	if d.Brokers != BrokersDefault || d.RaftGroups != groups ||
		float64(d.Ticks) < float64(d.Brokers)*(ticksWant-2) || float64(d.Ticks) > float64(d.Brokers)*(ticksWant+1) {
		t.Fatalf("density %+v over %d ns: want %d brokers, %d groups, about %.0f ticks each", d, res.SimNs, BrokersDefault, groups, ticksWant)
	}
	written := 0
	for _, op := range res.History.Ops {
		if op.Kind.IsWrite() && op.Outcome == properties.OutcomeOK {
			written++
		}
	}
	if written == 0 || d.Proposals < uint64(written) || d.ProposalBytesMean <= 0 || d.ProposalBytesMean > float64(d.ProposalBytesMax) {
		t.Fatalf("density %+v for %d writes answered Written", d, written)
	}
	// Every group elected a leader, which sent each written record's entry
	// to every follower; nothing fell behind far enough for a snapshot.
	r, followers := d.RaftWork, uint64(d.Brokers-1)
	if r.Elections < uint64(groups) || r.Votes < uint64(groups)*followers || r.Snapshots != 0 ||
		r.AppendedEntries < uint64(written)*followers || r.Sent < r.Appends+r.Votes+r.Heartbeats {
		t.Fatalf("raft work %+v for %d groups and %d writes answered Written", r, groups, written)
	}
	if got := d.ProposalsPerSimSecond * d.SimSeconds; got < float64(d.Proposals)-0.5 || got > float64(d.Proposals)+0.5 {
		t.Fatalf("rate %.2f/s over %.3f s is not %d proposals", d.ProposalsPerSimSecond, d.SimSeconds, d.Proposals)
	}
	again, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if again.Density != d {
		t.Fatalf("same seed, density %+v then %+v", d, again.Density)
	}
}
