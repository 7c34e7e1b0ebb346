package cluster

import (
	"fmt"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/sim/world"

	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/statemachine"
)

// Defaults of a Config field left zero.
const (
	BrokersDefault       = 3
	TickNsDefault        = 10_000_000 // 10 ms
	ElectionTicksDefault = 10
	// HeartbeatTicksDefault makes a leader heartbeat every 20 ms against an
	// election timeout of 100-200 ms (five heartbeats per timeout, as
	// real deployments keep it well under the timeout). Heartbeats were
	// the largest share of raft messages at one per tick.
	HeartbeatTicksDefault     = 2
	PendingWritesMaxDefault   = 4096
	PendingReadsMaxDefault    = 4096
	PendingTimeoutNsDefault   = 5_000_000_000 // 5 s
	RestartAfterFailNsDefault = 200_000_000   // 200 ms
	// DefaultBatchWindowNs is the default group-commit window (1 ms).
	DefaultBatchWindowNs = 1_000_000
	// SoftwareVersionDefault is every broker's software version at bootstrap.
	SoftwareVersionDefault = 2
)

// Config describes a simulated cluster; build it by field name. Zero
// fields take the defaults above; Streams nil takes DefaultStreams(4).
type Config struct {
	// Seed fixes every random stream of the run.
	Seed uint64
	// Brokers is the number of brokers (raft ids 1..Brokers at sim ids
	// 0..Brokers-1); every broker replicates every group.
	Brokers int
	// Extra are further processes (workload clients, probes) at sim ids
	// Brokers, Brokers+1, …; a broker answers a request to the sender's sim id.
	Extra []world.NodeSpec
	// Streams is the bootstrap topology.
	Streams []node.StreamSpec
	// AdminNamespace and AdminStream name the stream of Streams that a
	// plan's stream administration deletes and creates (see
	// streamadmin.go); AdminStream "" ignores those faults.
	AdminNamespace, AdminStream string
	// BootstrapVersion is every broker's software version at bootstrap (0:
	// SoftwareVersionDefault); Versions[i], when set, is broker raft id
	// i+1's version at first boot instead (an upgrade changes it later).
	BootstrapVersion uint32
	Versions         []uint32
	// NotFinalized leaves the atomic_commit fleet feature unfinalized at
	// bootstrap (commits are then refused); by default it is finalized.
	NotFinalized bool
	// Link is every link's baseline behaviour (latency, loss, duplication,
	// reordering); zero means 1-2 ms latency and no faults.
	Link world.LinkConfig
	// TickNs, ElectionTicks and HeartbeatTicks configure every broker's raft.
	TickNs         int64
	ElectionTicks  int
	HeartbeatTicks int
	// PendingWritesMax, PendingReadsMax and PendingTimeoutNs bound every
	// broker's pending tables (see node.Config).
	PendingWritesMax int
	PendingReadsMax  int
	PendingTimeoutNs int64
	// RestartAfterFailNs is how long a broker whose store failed stays down
	// before the cluster restarts it.
	RestartAfterFailNs int64
	// BatchWindowNs is each broker's group-commit window: inputs arriving
	// within it are processed together (one store commit, one batch per
	// peer) when it closes. Zero means DefaultBatchWindowNs; negative means
	// process every input at once.
	BatchWindowNs int64
	// CompactEntriesMin and CompactKeepEntries tune every broker's raft log
	// compaction (zero: the node's defaults).
	CompactEntriesMin  int
	CompactKeepEntries int
	// Defects are planted broker bugs; all off by default.
	Defects node.Defects
	// Observer, when not nil, is every broker's node.Observer: it sees
	// each boot, durable round and applied record as the run goes.
	Observer node.Observer
	// Density, when not nil, is shared by every broker and incarnation:
	// it counts their raft ticks and proposals (node.Density).
	Density *node.Density
	// Trace receives every broker's abstract trace (modeltrace); nil: off.
	Trace modeltrace.Sink
	// RecordTrace keeps the executed events for divergence reports.
	RecordTrace bool
	// Counts, when set, receives the cluster's coverage points (see
	// counts.go); nil counts nothing.
	Counts *coverage.Counts
	// MembershipBegun, when set, is called whenever the operator starts
	// membership work after none was pending (see MembershipSettled), so a
	// run can watch the change while it is in flight.
	MembershipBegun func()
}

// DefaultStreams is one quorum stream, orders/order-events, with shards
// shards and retention large enough that no default run drops a record.
func DefaultStreams(shards uint32) []node.StreamSpec {
	return []node.StreamSpec{{
		Namespace:          "orders",
		Stream:             "order-events",
		Shards:             shards,
		Kind:               statemachine.StreamQuorum,
		RetainedLenMax:     1 << 20,
		ReplayWindowLenMax: 1 << 20,
		GroupsMax:          64,
		LeasesPerGroupMax:  1024,
	}}
}

// EphemeralStream is an ephemeral stream namespace/stream of shards
// shards: no log, so its retention and group caps only satisfy the spec's
// shape (every operation needing them is refused).
func EphemeralStream(namespace, stream string, shards uint32) node.StreamSpec {
	return node.StreamSpec{Namespace: namespace, Stream: stream, Shards: shards, Kind: statemachine.StreamEphemeral,
		RetainedLenMax: 1, ReplayWindowLenMax: 1, GroupsMax: 1, LeasesPerGroupMax: 1}
}

// IsEphemeral reports whether s is an ephemeral stream's spec.
func IsEphemeral(s node.StreamSpec) bool { return s.Kind == statemachine.StreamEphemeral }

func (c *Config) withDefaults() Config {
	d := *c
	setInt := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	setI64 := func(v *int64, def int64) {
		if *v == 0 {
			*v = def
		}
	}
	setInt(&d.Brokers, BrokersDefault)
	setInt(&d.ElectionTicks, ElectionTicksDefault)
	setInt(&d.HeartbeatTicks, HeartbeatTicksDefault)
	setInt(&d.PendingWritesMax, PendingWritesMaxDefault)
	setInt(&d.PendingReadsMax, PendingReadsMaxDefault)
	setI64(&d.TickNs, TickNsDefault)
	setI64(&d.PendingTimeoutNs, PendingTimeoutNsDefault)
	setI64(&d.RestartAfterFailNs, RestartAfterFailNsDefault)
	setI64(&d.BatchWindowNs, DefaultBatchWindowNs)
	if d.BootstrapVersion == 0 {
		d.BootstrapVersion = SoftwareVersionDefault
	}
	if d.Streams == nil {
		d.Streams = DefaultStreams(4)
	}
	if d.Link == (world.LinkConfig{}) {
		d.Link = world.LinkConfig{LatencyMinNs: 1_000_000, LatencyMaxNs: 2_000_000}
	}
	return d
}

func (c *Config) validate() error {
	if c.Brokers < 1 || c.Brokers > node.PeersMax {
		return fmt.Errorf("cluster: %d brokers refused: need 1..%d", c.Brokers, node.PeersMax)
	}
	if len(c.Versions) > c.Brokers {
		return fmt.Errorf("cluster: %d broker versions for %d brokers refused", len(c.Versions), c.Brokers)
	}
	if c.Brokers+len(c.Extra) > world.NodesMax {
		return fmt.Errorf("cluster: %d brokers and %d extra processes exceed the world's %d nodes", c.Brokers, len(c.Extra), world.NodesMax)
	}
	return nil
}
