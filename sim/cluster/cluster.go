package cluster

import (
	"fmt"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/simapi"
	"github.com/felixsim/felixsim/sim/world"
)

// Cluster is N brokers wired into a world.World, plus any extra processes.
type Cluster struct {
	// World is the simulated world; drive it with RunFor, RunUntil, faults.
	World *world.World
	cfg   Config
	peers []uint64
	// brokers[i] is broker i's current incarnation (nil before first boot).
	brokers []*broker
	// failures are the brokers' fail-stop and boot errors, in order.
	failures []Failure
	// lastFailNs and failStreak track each broker's recent failures for
	// the restart backoff.
	lastFailNs []int64
	failStreak []int
	// versions[i] is the software version broker sim id i boots at.
	versions []uint32
	// ackedTerm[g] is the highest term in which a broker leading group g
	// acknowledged a write (0: none yet); kept only when cfg.Counts is set.
	ackedTerm []uint64
	// gens[i] is broker slot i's identity generation (see IdentityOf).
	gens []uint64
	// target is the membership the operator drives every group to;
	// replacements the replacements begun, at most ReplacementsMax.
	target            node.MembershipTarget
	replacements      []Replacement
	replacementsBegun int
	// membershipChanges counts SetVoter's changes (operator_faults.go).
	membershipChanges int
	// operatorArmed is set while an operator step is scheduled;
	// operatorPending while membership work is unfinished, operatorLast
	// saying what the last step found pending. corruptNow is set while
	// the operator replaces a corrupt store's disk.
	operatorArmed, operatorPending bool
	operatorLast                   string
	corruptNow                     bool
	// leads tracks leadership for counting failovers.
	leads leaderships
	// learnersSeen[g] are the learners the operator last saw in group g,
	// for counting promotions (counts.go).
	learnersSeen [][]uint64
	// stream is the operator's stream administration (streamadmin.go).
	stream streamAdmin
	// fleet is the operator's rolling upgrade (fleetops.go).
	fleet fleetOps
	// deliveries counts the copies of client write requests delivered to
	// brokers (deliveries.go).
	deliveries *RequestDeliveries
}

// Restart backoff for brokers that fail repeatedly.
const (
	// FailStreakWindowNs: a failure within this long of the broker's
	// previous one extends its streak; a later one starts a new streak.
	FailStreakWindowNs = 5_000_000_000
	// RestartBackoffMaxShift caps the doubling of the restart delay.
	RestartBackoffMaxShift = 4
)

// restartDelayNs is how long broker simID stays down after a failure now.
func (c *Cluster) restartDelayNs(simID int) int64 {
	now := c.World.NowNs()
	if c.lastFailNs[simID] != 0 && now-c.lastFailNs[simID] < FailStreakWindowNs {
		c.failStreak[simID] = min(c.failStreak[simID]+1, RestartBackoffMaxShift)
	} else {
		c.failStreak[simID] = 0
	}
	c.lastFailNs[simID] = now
	return c.cfg.RestartAfterFailNs << c.failStreak[simID]
}

// Failure is a broker that stopped on an error (a store write or fsync
// refused, or a boot that could not open its store).
type Failure struct {
	AtNs   int64
	Broker uint64
	Err    error
}

// FailuresMax caps the recorded failures; later ones are counted only.
const FailuresMax = 1024

// RaftID is the raft node id broker slot simID boots under first, and
// how clients address the slot (IdentityOf is the one it runs now).
func RaftID(simID int) uint64 { return uint64(simID) + 1 }

// SimID is the sim node id of the broker slot whose identity (any
// generation) has raft id raftID.
func SimID(raftID uint64) int { return int((raftID - 1) % RaftIDStride) }

// New builds the world and boots every broker and extra process at time 0.
func New(cfg Config) (*Cluster, error) {
	d := cfg.withDefaults()
	if err := d.validate(); err != nil {
		return nil, err
	}
	c := &Cluster{cfg: d, brokers: make([]*broker, d.Brokers), lastFailNs: make([]int64, d.Brokers), failStreak: make([]int, d.Brokers),
		gens: make([]uint64, d.Brokers), deliveries: newRequestDeliveries(RequestDeliveriesMax)}
	c.ackedTerm = make([]uint64, c.Groups()+1)
	for i := 0; i < d.Brokers; i++ {
		c.peers = append(c.peers, RaftID(i))
		c.target.Voters = append(c.target.Voters, RaftID(i))
		v := d.BootstrapVersion
		if i < len(d.Versions) && d.Versions[i] != 0 {
			v = d.Versions[i]
		}
		c.versions = append(c.versions, v)
	}
	c.leads = newLeaderships(c.Groups())
	var specs []world.NodeSpec
	for i := 0; i < d.Brokers; i++ {
		id := i
		specs = append(specs, world.NodeSpec{Name: fmt.Sprintf("broker-%d", RaftID(i)), New: func() simapi.Process { return &broker{c: c, id: id} }})
	}
	specs = append(specs, d.Extra...)
	w, err := world.New(world.Config{Seed: d.Seed, Nodes: specs, Link: d.Link, RecordTrace: d.RecordTrace, ResolveRole: c.resolveRole, Operator: c, Coverage: d.Counts})
	if err != nil {
		return nil, err
	}
	c.World = w
	return c, nil
}

// Close releases the world (and its process-global guards).
func (c *Cluster) Close() error { return c.World.Close() }

// Config returns the cluster's config with defaults filled in.
func (c *Cluster) Config() Config { return c.cfg }

// Brokers is the number of brokers.
func (c *Cluster) Brokers() int { return c.cfg.Brokers }

// Failures lists the brokers' fail-stops and failed boots so far.
func (c *Cluster) Failures() []Failure { return append([]Failure(nil), c.failures...) }

func (c *Cluster) noteFailure(simID int, err error) {
	if len(c.failures) < FailuresMax {
		c.failures = append(c.failures, Failure{AtNs: c.World.NowNs(), Broker: RaftID(simID), Err: err})
	}
}

// nodeConfig is broker simID's node config for one incarnation.
func (c *Cluster) nodeConfig(simID int, env simapi.Env) node.Config {
	boot := node.Bootstrap{Streams: c.cfg.Streams, SoftwareVersion: c.cfg.BootstrapVersion}
	if !c.cfg.NotFinalized {
		boot.FinalizedFeatures = []string{node.FeatureAtomicCommit}
	}
	return node.Config{
		ID:               c.IdentityOf(simID),
		Peers:            c.peers,
		Join:             c.gens[simID] > 0,
		FS:               env.FS(),
		TickNs:           c.cfg.TickNs,
		ElectionTicks:    c.cfg.ElectionTicks,
		HeartbeatTicks:   c.cfg.HeartbeatTicks,
		Bootstrap:        boot,
		PendingWritesMax: c.cfg.PendingWritesMax,
		PendingReadsMax:  c.cfg.PendingReadsMax,
		PendingTimeoutNs: c.cfg.PendingTimeoutNs,
		HostProcesses:    c.cfg.BatchWindowNs > 0,
		SoftwareVersion:  c.versions[simID],
		Defects:          c.cfg.Defects,
		Observer:         c.cfg.Observer,
		Density:          c.cfg.Density,
		Trace:            c.cfg.Trace,

		CompactEntriesMin:  c.cfg.CompactEntriesMin,
		CompactKeepEntries: c.cfg.CompactKeepEntries,
		OnLeader:           c.onLeader(RaftID(simID)),
		OnPath:             c.onPath,
		OnMoment:           env.Moment,
	}
}

// Upgrade restarts broker raftID at software version (newer or older):
// it is killed now, losing what it had not synced, and boots at version
// after restartAfterNs (at least 1). A paused broker is killed too (it
// would resume running the old version); one down at the time boots at
// version whenever it boots next.
func (c *Cluster) Upgrade(raftID uint64, version uint32, restartAfterNs int64) {
	i := SimID(raftID)
	c.versions[i] = version
	if !c.World.Down(i) {
		c.World.Kill(i, false, max(restartAfterNs, 1))
	}
}

// Version is the software version broker raftID runs (or boots at next).
func (c *Cluster) Version(raftID uint64) uint32 { return c.versions[SimID(raftID)] }

// Node returns broker raftID's running node, or nil when it is down,
// paused mid-boot or failed to open.
func (c *Cluster) Node(raftID uint64) *node.Node {
	i := SimID(raftID)
	if i < 0 || i >= len(c.brokers) || c.brokers[i] == nil || !c.World.Up(i) {
		return nil
	}
	b := c.brokers[i]
	if b.n == nil || b.n.Failed() != nil {
		return nil
	}
	return b.n
}

// Groups is the number of raft groups each broker hosts (metadata included).
func (c *Cluster) Groups() int {
	n := 1
	for _, s := range c.cfg.Streams {
		n += int(s.Shards)
	}
	return n
}

// RaftGroupOf returns the raft group id of a stream shard, or 0 if unknown.
func (c *Cluster) RaftGroupOf(namespace, stream string, shard uint32) uint64 {
	return node.RaftGroupOf(c.cfg.Streams, namespace, stream, shard)
}

// Running is the number of brokers whose node is up and has not failed.
func (c *Cluster) Running() int {
	n := 0
	for i := 0; i < c.cfg.Brokers; i++ {
		if c.Node(RaftID(i)) != nil {
			n++
		}
	}
	return n
}
