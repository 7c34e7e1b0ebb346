package workload

import (
	"fmt"
	"slices"

	"github.com/felixsim/felixsim/client"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/faultplan"
)

// Defaults of a Config field left zero.
const (
	ClientsDefault    = 4
	EntityKeysDefault = 6
	// OpGapMeanNsDefault is 18 ms between one client's invocations, on
	// average: with LiveSlotsPct of the slots on the live stream, the
	// quorum streams get one about every 20 ms, as before it joined the mix.
	OpGapMeanNsDefault = 18_000_000
	// OpGapMeanNsMin bounds the mean gap from below: a client steps once
	// per gap whether or not it may invoke, so a gap of a few ns is an
	// event storm that never reaches the end of the run (a plan cut or
	// edited to `op_gap_mean_ns 2` did that), and below the brokers'
	// 1 ms group-commit window a shorter gap adds no load anyway.
	OpGapMeanNsMin            = 100_000
	InFlightMaxDefault        = 4             // calls one client keeps open
	CallTimeoutNsDefault      = 1_000_000_000 // 1 s
	RetryUnknownPctDefault    = 50
	SubscribeMaxDefault       = 16
	FetchMaxDefault           = 4
	LeaseNsDefault            = 2_000_000_000
	NotLeaderRedirectsDefault = 3
	GroupNameDefault          = "fulfilment"
	NamespaceDefault          = "orders"
	StreamDefault             = "order-events"
	defaultTenantA            = "acme"
	defaultTenantB            = "globex"
	entityKeyPrefix           = "order-"
	cartKeyPrefix             = "cart-"
)

// Config describes the workload; build it by field name. Zero fields take
// the defaults above.
type Config struct {
	// Brokers is the number of brokers (raft ids 1..Brokers at sim ids
	// 0..Brokers-1, as sim/cluster lays them out).
	Brokers int
	// FirstSimID is the sim id of the first client process (clients follow
	// at FirstSimID+1, …); sim/cluster puts extra processes after the
	// brokers, so it is usually Brokers.
	FirstSimID int
	// Clients is how many client processes run; client i belongs to tenant
	// Tenants[i % len(Tenants)].
	Clients int
	// Tenants are the tenants; at least two, so that equal names collide
	// across tenants. Nil means acme and globex.
	Tenants []string
	// Namespace and Streams name the streams every tenant writes (the same
	// names in every tenant, on purpose); nil Streams means one, StreamDefault.
	Namespace string
	Streams   []string
	// Shards is every stream's shard count (for routing); must match the cluster.
	Shards uint32
	// LiveStream names an ephemeral stream in Namespace ("": none) of
	// LiveShards shards: clients subscribe to it live, publish to it, and
	// send it commits and commit_ifs, which it must refuse (see live.go).
	LiveStream string
	LiveShards uint32
	// EntityKeys is how many entity keys (order-1 …) the clients share.
	EntityKeys int
	// OpGapMeanNs is the mean simulated time between one client's invocations.
	OpGapMeanNs int64
	// InFlightMax caps one client's open calls; a client at the cap waits.
	InFlightMax int
	// CallTimeoutNs is each call's deadline; a call past it completes with
	// an unknown outcome.
	CallTimeoutNs int64
	// RetryUnknownPct is the chance (0-100) that an unconditional write
	// whose outcome was unknown is re-sent as a new, linked operation.
	// Negative means never.
	RetryUnknownPct int
	// StopNs is the simulated time from which no new operation is invoked;
	// calls in flight still complete (by answer or deadline).
	StopNs int64
	// WrongRouteHash plants the client's routing bug (client.Defects).
	WrongRouteHash bool
	// TimeoutAsFailure plants the client's outcome bug (client.Defects):
	// a timed-out write is reported failed.
	TimeoutAsFailure bool
	// FailedOnCopyRefusal plants the client's certainty bug
	// (client.Defects): a write whose last copy was refused is
	// reported failed.
	FailedOnCopyRefusal bool
	// StartSpreadNs spreads the clients' first invocations: each client
	// starts at a time drawn from [1, OpGapMeanNs+StartSpreadNs], so a
	// tenant's scopes get their first commits while faults strike, not
	// only in the calm before the first fault (model-state coverage, see
	// tla/README.md). 0 keeps the first invocation within one gap, as it
	// is for the sticky clients always.
	StartSpreadNs int64
	// Seed is the run's seed: the scope arrivals' times derive from it.
	Seed uint64
	// Arrivals is how many new scopes get their first writes spread over
	// the fault phase (arrivals.go); 0 means none. At most ArrivalsMax.
	Arrivals int
	// OpsMax caps the recorded history; at the cap clients invoke nothing
	// more (overflow policy: refuse new operations). 0 means OpsMaxDefault.
	OpsMax int
	// HeldOps is how many recorded operations the history holds in memory
	// before it streams the oldest completed ones to a scratch file
	// (in blocks of at most 1,024, rounded down to whole blocks); 0 means
	// HeldOpsDefault. It changes no run, only where its history waits.
	HeldOps int
	// SpillDir is the directory of that scratch file; "" is os.TempDir.
	SpillDir string
	// StickyClients is how many clients, the last ones, keep a shard's
	// broker after a call to it timed out (client.Config.KeepBrokerOnTimeout):
	// they go on reaching a deposed leader that the others have left.
	StickyClients int
	// KeepOps restricts clients to some of their operations (a shrunk
	// plan's faultplan.Plan.Ops); nil keeps every operation.
	KeepOps []faultplan.ClientOps
}

// OpsMaxDefault caps a history when Config.OpsMax is 0.
const OpsMaxDefault = 1 << 20

func (c Config) withDefaults() Config {
	d := c
	if d.Clients == 0 {
		d.Clients = ClientsDefault
	}
	if d.Tenants == nil {
		d.Tenants = []string{defaultTenantA, defaultTenantB}
	}
	if d.Namespace == "" {
		d.Namespace = NamespaceDefault
	}
	if d.Streams == nil {
		d.Streams = []string{StreamDefault}
	}
	if d.EntityKeys == 0 {
		d.EntityKeys = EntityKeysDefault
	}
	if d.OpGapMeanNs == 0 {
		d.OpGapMeanNs = OpGapMeanNsDefault
	}
	if d.InFlightMax == 0 {
		d.InFlightMax = InFlightMaxDefault
	}
	if d.CallTimeoutNs == 0 {
		d.CallTimeoutNs = CallTimeoutNsDefault
	}
	if d.RetryUnknownPct == 0 {
		d.RetryUnknownPct = RetryUnknownPctDefault
	}
	if d.OpsMax == 0 {
		d.OpsMax = OpsMaxDefault
	}
	if d.HeldOps == 0 {
		d.HeldOps = HeldOpsDefault
	}
	return d
}

func (c *Config) validate() error {
	switch {
	case c.Brokers < 1:
		return fmt.Errorf("workload: %d brokers refused: need at least 1", c.Brokers)
	case c.FirstSimID < c.Brokers:
		return fmt.Errorf("workload: first client sim id %d refused: brokers occupy 0..%d", c.FirstSimID, c.Brokers-1)
	case c.Clients < 1:
		return fmt.Errorf("workload: %d clients refused: need at least 1", c.Clients)
	case len(c.Tenants) < 2:
		return fmt.Errorf("workload: %d tenants refused: need at least 2 so that names collide across tenants", len(c.Tenants))
	case len(c.Streams) == 0:
		return fmt.Errorf("workload: no streams refused: need at least one")
	case c.Shards < 1:
		return fmt.Errorf("workload: %d shards refused: need at least 1", c.Shards)
	case c.OpGapMeanNs < OpGapMeanNsMin:
		return fmt.Errorf("workload: op gap %d ns refused: a client steps once per gap, so a mean under %d ns floods the run with events", c.OpGapMeanNs, OpGapMeanNsMin)
	case c.EntityKeys < 1 || c.InFlightMax < 1 || c.CallTimeoutNs < 1 || c.OpsMax < 1 || c.HeldOps < 1:
		return fmt.Errorf("workload: entity keys %d, op gap %d ns, in-flight cap %d, call timeout %d ns, ops cap %d, held ops %d refused: each must be positive",
			c.EntityKeys, c.OpGapMeanNs, c.InFlightMax, c.CallTimeoutNs, c.OpsMax, c.HeldOps)
	case c.LiveStream != "" && (c.LiveShards < 1 || slices.Contains(c.Streams, c.LiveStream)):
		return fmt.Errorf("workload: live stream %q of %d shards refused: it needs a shard and a name apart from the streams %q", c.LiveStream, c.LiveShards, c.Streams)
	case c.Arrivals < 0 || c.Arrivals > ArrivalsMax:
		return fmt.Errorf("workload: %d scope arrivals refused: need 0..%d (a stream shard's raft group holds 64 tenants)", c.Arrivals, ArrivalsMax)
	case c.StartSpreadNs < 0:
		return fmt.Errorf("workload: start spread %d ns refused: negative", c.StartSpreadNs)
	case c.StickyClients < 0 || c.StickyClients > c.Clients:
		return fmt.Errorf("workload: %d sticky clients refused: need 0..%d (the clients)", c.StickyClients, c.Clients)
	case c.RetryUnknownPct > 100:
		return fmt.Errorf("workload: retry chance %d%% refused: above 100", c.RetryUnknownPct)
	}
	if err := validateKeepOps(c.KeepOps, c.Clients); err != nil {
		return err
	}
	for i, t := range c.Tenants {
		for _, u := range c.Tenants[:i] {
			if t == u {
				return fmt.Errorf("workload: tenant %q listed twice", t)
			}
		}
	}
	return nil
}

// ClientConfig is the client package's config for this workload's
// topology and brokers (a relay of its scopes uses it too).
func (c *Config) ClientConfig() client.Config {
	var brokers []client.NodeID
	for i := 1; i <= c.Brokers; i++ {
		brokers = append(brokers, client.NodeID(i))
	}
	var streams []client.StreamShards
	for _, s := range c.Streams {
		streams = append(streams, client.StreamShards{Namespace: c.Namespace, Stream: s, Shards: c.Shards})
	}
	if c.LiveStream != "" {
		streams = append(streams, client.StreamShards{Namespace: c.Namespace, Stream: c.LiveStream, Shards: c.LiveShards})
	}
	return client.Config{
		IdentityStride:        cluster.RaftIDStride,
		Brokers:               brokers,
		Streams:               streams,
		CallTimeoutNs:         c.CallTimeoutNs,
		PendingMax:            c.InFlightMax + FetchMaxDefault,
		NotLeaderRedirectsMax: NotLeaderRedirectsDefault,
		Defects: client.Defects{WrongRouteHash: c.WrongRouteHash, TimeoutAsFailure: c.TimeoutAsFailure,
			FailedOnCopyRefusal: c.FailedOnCopyRefusal},
	}
}

// shardsOf is stream's shard count: LiveShards for the live stream,
// Shards for the others.
func (c *Config) shardsOf(stream string) uint32 {
	if stream != "" && stream == c.LiveStream {
		return c.LiveShards
	}
	return c.Shards
}

// clientConfigOf is workload client index's config: ClientConfig, keeping
// its broker after a timeout for the last StickyClients clients.
func (c *Config) clientConfigOf(index int) client.Config {
	cc := c.ClientConfig()
	cc.KeepBrokerOnTimeout = index >= c.Clients-c.StickyClients // proc.sticky
	if c.Arrivals > 0 {
		cc.PendingMax += arrivalWritesMax
	}
	return cc
}
