package node

import (
	"fmt"
	"sort"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
)

// ScopesPerRaftGroupMax caps the tenants (scopes) one stream shard's raft
// group holds; a write for one more tenant is refused at apply, identically
// on every replica.
const ScopesPerRaftGroupMax = 64

// raftGroup is one raft group this node hosts: the metadata group or one
// stream shard, whose scopes (one per tenant) are statemachine shards.
//
// Invariant: applied only grows, and applied <= the group's commit index.
type raftGroup struct {
	id uint64
	rn *raft.RawNode
	// applied is the raft index applied last.
	applied uint64
	// lead is the leader raft last reported (0 = unknown); isLeader is ours.
	lead     uint64
	isLeader bool
	// spec and shard say which stream shard this is; spec is nil for MetaGroup.
	spec  *StreamSpec
	shard uint32
	// scopes holds each tenant's shard; tenants lists the keys, sorted.
	scopes  map[string]*statemachine.Shard
	tenants []string
	// features are the fleet features this shard group's log has applied
	// (the bootstrap's, then each cmdFeature marker): commits are gated on
	// them, never on the metadata group, which replicas apply apart.
	features statemachine.Features
	// featuresIndex is the log index of the cmdFeature marker that
	// finalized atomic_commit in this group (0: none applied here; the
	// bootstrap's features need no marker). A compaction point at or past
	// it carries the feature (featuresAt), so a restart after compaction
	// or a snapshot install keeps gating commits at the same position.
	featuresIndex uint64
	// ephemeral holds an ephemeral stream's live subscribers by tenant
	// while this node leads the group (looked up, never ranged over).
	ephemeral map[string]*ephemeralScope
	// outboxStart is each tenant's first untrimmed outbox offset (absent:
	// 0); looked up, never ranged over. See outbox.go.
	outboxStart map[string]uint64
	// early is the AckBeforeQuorum defect's next predicted offset per tenant.
	early map[string]uint64
	// confState is the group's membership as of applied; confIndex is
	// the index of the last conf change applied (0: none since boot or
	// the last snapshot installed).
	confState *raftpb.ConfState
	confIndex uint64
	// ages are each tenant's retention-by-age marks (nil: none taken yet).
	ages map[string]*ageMarks
	// incarnation is the stream incarnation this group's log has applied
	// (bootIncarnation, then each cmdIncarnation marker that moved it; see
	// streamadmin.go); incarnationIndex is the index of the marker that
	// moved it last (0: none since the snapshot or compaction point the
	// group started from, which carries it).
	incarnation      StreamIncarnation
	incarnationIndex uint64
	// leaseUntil is the tick the LeaseReadByTicks defect's lease runs to
	// (0: none taken; see rare_defects.go).
	leaseUntil uint64
}

// scopeOf is the scope of tenant inside this stream shard.
func (g *raftGroup) scopeOf(tenant string) felix.Scope {
	return felix.Scope{Tenant: tenant, Namespace: g.spec.Namespace, Stream: g.spec.Stream, Shard: g.shard}
}

// lookup returns tenant's shard, or nil if it never wrote here.
func (g *raftGroup) lookup(tenant string) *statemachine.Shard { return g.scopes[tenant] }

// open returns tenant's shard, creating it empty if it has none; it
// refuses a tenant past ScopesPerRaftGroupMax.
func (g *raftGroup) open(tenant string) (*statemachine.Shard, error) {
	if s := g.scopes[tenant]; s != nil {
		return s, nil
	}
	if len(g.tenants) >= ScopesPerRaftGroupMax {
		return nil, fmt.Errorf("%w: group %d already holds %d tenants, the cap", statemachine.ErrInvalidCommand, g.id, len(g.tenants))
	}
	s, err := statemachine.New(g.spec.shardConfig(g.scopeOf(tenant)))
	if err != nil {
		return nil, err
	}
	g.install(tenant, s)
	return s, nil
}

// install adds tenant's shard, keeping tenants sorted.
func (g *raftGroup) install(tenant string, s *statemachine.Shard) {
	if _, ok := g.scopes[tenant]; ok {
		panic(fmt.Sprintf("group %d: tenant %q installed twice", g.id, tenant))
	}
	g.scopes[tenant] = s
	i := sort.SearchStrings(g.tenants, tenant)
	g.tenants = append(g.tenants, "")
	copy(g.tenants[i+1:], g.tenants[i:])
	g.tenants[i] = tenant
}

// topology maps stream shards to raft groups: MetaGroup first, then every
// stream's shards in bootstrap order.
type topology struct {
	streams []StreamSpec
	// firstGroup[i] is the group id of stream i's shard 0.
	firstGroup []uint64
	groups     int
}

func newTopology(streams []StreamSpec) topology {
	t := topology{streams: streams}
	next := MetaGroup + 1
	for _, s := range streams {
		t.firstGroup = append(t.firstGroup, next)
		next += uint64(s.Shards)
	}
	t.groups = int(next - MetaGroup)
	return t
}

// groupOf returns the group id of (namespace, stream, shard), or 0.
func (t *topology) raftGroupOf(namespace, stream string, shard uint32) uint64 {
	for i := range t.streams {
		s := &t.streams[i]
		if s.Namespace == namespace && s.Stream == stream {
			if shard >= s.Shards {
				return 0
			}
			return t.firstGroup[i] + uint64(shard)
		}
	}
	return 0
}

// specOf returns the stream spec and shard index of group id (id > MetaGroup).
func (t *topology) specOf(id uint64) (*StreamSpec, uint32) {
	for i := len(t.streams) - 1; i >= 0; i-- {
		if id >= t.firstGroup[i] {
			return &t.streams[i], uint32(id - t.firstGroup[i])
		}
	}
	panic(fmt.Sprintf("topology: group %d is not a stream shard", id))
}

// RaftGroupOf returns the raft group id that a cluster bootstrapped with
// streams gives to (namespace, stream, shard), or 0 if there is none.
func RaftGroupOf(streams []StreamSpec, namespace, stream string, shard uint32) uint64 {
	t := newTopology(streams)
	return t.raftGroupOf(namespace, stream, shard)
}
