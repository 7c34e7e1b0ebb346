package world

import (
	"fmt"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/sim/simapi"
)

// NodesMax bounds the world's size; node sets in fault plans are 64-bit masks.
const NodesMax = 64

// NodeSpec describes one process slot of the world.
type NodeSpec struct {
	// Name labels the node in traces and errors (e.g. "broker-1", "client-0").
	Name string
	// New makes a fresh process for each incarnation.
	New func() simapi.Process
	// FaultExempt keeps plan faults off this node (workload clients, say):
	// it is never killed, paused, clock- or disk-faulted, and a plan naming
	// it is refused. Network-wide conditions still apply to its links.
	FaultExempt bool
	// ClockSkewNs is the node clock's reading at virtual time 0.
	ClockSkewNs int64
	// ClockDriftPpm is the node clock's baseline drift, restored by Heal.
	ClockDriftPpm int64
}

// LinkConfig is the behaviour of one directed link.
type LinkConfig struct {
	// LatencyMinNs and LatencyMaxNs bound a uniform one-way latency.
	LatencyMinNs, LatencyMaxNs int64
	// LatencyTailPpm draws a message's latency from the slow tail
	// [LatencyMaxNs, LatencyTailMaxNs] instead, with this probability: a
	// two-mode distribution of a usually fast, sometimes stalled link.
	LatencyTailPpm   int64
	LatencyTailMaxNs int64
	// LossPpm drops a message with this probability (parts per million).
	LossPpm int64
	// DuplicatePpm delivers a second copy with this probability.
	DuplicatePpm int64
	// ReorderPpm delays a message by up to ReorderDelayMaxNs extra with this
	// probability, so that later messages overtake it.
	ReorderPpm        int64
	ReorderDelayMaxNs int64
}

func (c LinkConfig) validate() error {
	switch {
	case c.LatencyMinNs < 0 || c.LatencyMaxNs < c.LatencyMinNs:
		return fmt.Errorf("sim: link latency [%d, %d] ns refused: need 0 <= min <= max", c.LatencyMinNs, c.LatencyMaxNs)
	case c.LossPpm < 0 || c.LossPpm > PpmScale || c.DuplicatePpm < 0 || c.DuplicatePpm > PpmScale || c.ReorderPpm < 0 || c.ReorderPpm > PpmScale:
		return fmt.Errorf("sim: link probabilities loss=%d dup=%d reorder=%d ppm refused: each must be in [0, 1e6]", c.LossPpm, c.DuplicatePpm, c.ReorderPpm)
	case c.LatencyTailPpm < 0 || c.LatencyTailPpm > PpmScale || (c.LatencyTailPpm > 0 && c.LatencyTailMaxNs < c.LatencyMaxNs):
		return fmt.Errorf("sim: latency tail %d ppm up to %d ns refused: need a probability in [0, 1e6] and a tail max >= %d ns", c.LatencyTailPpm, c.LatencyTailMaxNs, c.LatencyMaxNs)
	case c.ReorderDelayMaxNs < 0:
		return fmt.Errorf("sim: reorder delay %d ns refused: negative", c.ReorderDelayMaxNs)
	}
	return nil
}

// LinkOverride sets the behaviour of the directed link From -> To.
type LinkOverride struct {
	From, To int
	Link     LinkConfig
}

// Operator is the system under test's operator, told of world faults
// that need an operator's action: its methods run inside the fault's
// event and must not call back into the world's run loop.
type Operator interface {
	// DiskReplaced is told that node's disk was just replaced by an empty
	// one (the node is down and boots on it later).
	DiskReplaced(node int)
	// SetVoter makes node a voter again (voter true) or demotes it to a
	// learner in every group (false), through membership changes; it
	// reports whether that changed the membership the operator drives to.
	SetVoter(node int, voter bool) bool
	// Retain has every group's leader drop all but the newest keepRecords
	// records of each scope (a retention step through raft); it reports
	// whether some leader proposed a drop.
	Retain(keepRecords int64) bool
}

// StreamOperator is an Operator that also carries out a plan's stream
// administration on the run's administered stream (the kinds whose
// AdministersStream is true). Its method runs inside the fault's event
// and must not call back into the world's run loop.
type StreamOperator interface {
	// StreamAdmin asks for the administered stream to be deleted
	// (deleted) or created again; effect, called at most once and later,
	// counts the fault's effect: every shard of the stream applied it.
	StreamAdmin(deleted bool, effect func())
}

// FleetOperator is an Operator that also carries out a plan's rolling
// upgrade (the kinds whose UpgradesFleet is true). Its methods run inside
// the fault's event and must not call back into the world's run loop.
type FleetOperator interface {
	// UpgradeBroker restarts node at the version the upgrade goes to,
	// after downNs; effect, called at most once and later, counts the
	// fault's effect: the metadata group recorded the new version.
	UpgradeBroker(node int, downNs int64, effect func())
	// Finalize asks for the upgrade's fleet feature to be finalized;
	// effect is called once it is.
	Finalize(effect func())
}

// Config builds a World; build it by field name.
type Config struct {
	// Seed fixes every random stream of the run.
	Seed uint64
	// Nodes are the process slots; a node's ID is its index.
	Nodes []NodeSpec
	// Link is every link's baseline behaviour; Heal restores it.
	Link LinkConfig
	// Links override the baseline for single directed links.
	Links []LinkOverride
	// ResolveRole names the node holding a role (such as "leader") right
	// now, for plan faults aimed at a role; nil refuses such plans.
	ResolveRole func(role string) (node int, ok bool)
	// Operator carries out, on the system under test, what a fault does
	// beyond the world (see Operator); nil: the world part alone.
	Operator Operator
	// RecordTrace keeps the executed events (for WriteTrace and
	// FirstDivergence); the hash is computed either way.
	RecordTrace bool
	// TraceEventsMax caps the recorded trace (0 means TraceEventsMaxDefault).
	TraceEventsMax int
	// Coverage, if set, counts every plan fault applied and every one
	// that had an effect (see effects.go); nil counts nothing.
	Coverage *coverage.Counts
}

func (c *Config) validate() error {
	if len(c.Nodes) == 0 || len(c.Nodes) > NodesMax {
		return fmt.Errorf("sim: %d nodes refused: need 1..%d", len(c.Nodes), NodesMax)
	}
	for i, n := range c.Nodes {
		if n.New == nil {
			return fmt.Errorf("sim: node %d (%q) refused: New is nil", i, n.Name)
		}
		if n.ClockDriftPpm < -DriftPpmMax || n.ClockDriftPpm > DriftPpmMax {
			return fmt.Errorf("sim: node %d clock drift %d ppm refused: outside ±%d", i, n.ClockDriftPpm, DriftPpmMax)
		}
	}
	if err := c.Link.validate(); err != nil {
		return err
	}
	for _, o := range c.Links {
		if o.From < 0 || o.From >= len(c.Nodes) || o.To < 0 || o.To >= len(c.Nodes) {
			return fmt.Errorf("sim: link override %d->%d refused: no such node among %d", o.From, o.To, len(c.Nodes))
		}
		if err := o.Link.validate(); err != nil {
			return fmt.Errorf("link %d->%d: %w", o.From, o.To, err)
		}
	}
	if c.TraceEventsMax < 0 {
		return fmt.Errorf("sim: TraceEventsMax %d refused: negative", c.TraceEventsMax)
	}
	return nil
}
