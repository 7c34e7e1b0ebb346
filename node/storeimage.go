package node

import (
	"fmt"
	"slices"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/logstore"
	"github.com/felixsim/felixsim/statemachine"
)

// Store images: a node's replica in one plain form, read either from its
// memory (MemoryImage) or from what its store made durable (DurableImage:
// the bytes a crash would leave, decoded apart from the Store that wrote
// them, and read back the way a restart reads them), so a checker can
// compare the two after every durable round (Observer.RoundDurable). An
// image holds each group's raft state and points at its tables (a store
// and a scope, or a shard) for the checker to read in place: nothing is
// listed or copied whole.

// StoreImage is some raft groups of one node, read from one side.
type StoreImage struct {
	Node uint64
	// Metadata is the metadata group's state; nil when Groups leave the
	// metadata group out.
	Metadata *Metadata
	// Groups are in the order asked for.
	Groups []GroupImage
}

// GroupImage is one raft group of a StoreImage.
type GroupImage struct {
	ID        uint64
	HardState HardState
	// Applied is the group's applied index; 0 for the metadata group on
	// both sides (its store keeps none: a restart folds it again).
	Applied uint64
	// Features and Incarnation are what the group's log has applied (zero
	// for the metadata group); Voters and Learners its membership there.
	Features    statemachine.Features
	Incarnation StreamIncarnation
	Voters      []uint64
	Learners    []uint64
	// FirstIndex and LastIndex bound the raft log the store holds (in
	// memory: what raft reads as its stable log); Raft holds it (the
	// node's own store, or the followed one), to read in place.
	FirstIndex, LastIndex uint64
	Raft                  *logstore.Store
	// Scopes ascend by scope.
	Scopes []ScopeImage
}

// ScopeImage is one scope of a GroupImage: in memory its shard and outbox
// start; on the durable side the scope alone (its rows are the followed
// store's, GroupImage.Raft).
type ScopeImage struct {
	Scope       felix.Scope
	Shard       *statemachine.Shard
	OutboxStart uint64
}

// DurableStore follows a node's store file as a crash would leave it
// (logstore.Follower): every byte is decoded once, as it becomes durable.
type DurableStore struct {
	f *logstore.Follower
	// node and rewrites are the incarnation followed and its store
	// rewrites when last followed: a rewrite (the file replaced) is read
	// again from the start, unless it is the rewrite of what was followed
	// (logstore.Follower.FollowRewritten). A new incarnation's store reopened the same
	// file (a torn tail cut, nothing before it changed): the follower
	// reads on unless the file no longer extends what it read.
	node     *Node
	rewrites uint64
	// folds are, per shard group, what recovery derived from the durable
	// store at the last image (looked up, never ranged over): the next
	// image folds only the entries applied since, as long as the group's
	// stored snapshot and boot features are the same.
	folds map[uint64]*durableFold
	// scopes are the followed store's scopes, ascending, as of the
	// follower's generation and scope count scopesAt (see Scopes).
	scopes   []felix.Scope
	scopesAt [2]uint64
}

// durableFold is one shard group as recovery derived it from a durable
// store: its features, incarnation and membership at its applied index.
type durableFold struct {
	snapIndex    uint64
	bootFeatures statemachine.Features
	g            raftGroup
}

// NewDurableStore returns a follower that has read nothing yet.
func NewDurableStore() *DurableStore {
	return &DurableStore{f: logstore.NewFollower("")}
}

// Follow reads what n's store has made durable since the last call on
// src, the node's disk. An error is damage in the durable bytes (a
// corrupted sector): nothing can be compared until the node reopens.
func (d *DurableStore) Follow(n *Node, src logstore.DurableSource) error {
	follow := d.f.Follow
	if d.node == n && d.rewrites != n.stats.Rewrites {
		follow = d.f.FollowRewritten
	}
	d.node, d.rewrites = n, n.stats.Rewrites
	was := d.f.Store()
	err := follow(src)
	if d.f.Store() != was || d.folds == nil {
		d.folds = map[uint64]*durableFold{} // read again from the start
	}
	return err
}

// TakeChanges returns which of scope's rows the followed store changed
// since the last call for scope, and forgets them (logstore.Follower).
func (d *DurableStore) TakeChanges(scope felix.Scope) logstore.ScopeChanges {
	return d.f.TakeChanges(scope)
}

// Generation counts the times the follower read the file again from its
// start: every row then counts as changed.
func (d *DurableStore) Generation() uint64 { return d.f.Generation() }

// Scopes lists the followed store's scopes, ascending, listed again only
// when one gained its first row or lost its last.
func (d *DurableStore) Scopes() []felix.Scope {
	if at := [2]uint64{d.f.Generation(), d.f.ScopesChanged()}; d.scopes == nil || at != d.scopesAt {
		d.scopes, d.scopesAt = d.f.Store().Scopes(), at
	}
	return d.scopes
}

// MemoryImage reads the groups ids (hosted by the node) from memory.
func (n *Node) MemoryImage(ids []uint64) StoreImage {
	img := StoreImage{Node: n.cfg.ID}
	for _, id := range ids {
		g := n.raftGroup(id)
		if g == nil {
			panic(fmt.Sprintf("node %d: memory image of group %d, which it does not host", n.cfg.ID, id))
		}
		st := g.rn.BasicStatus()
		gi := GroupImage{ID: id, HardState: HardState{Term: st.HardState.GetTerm(), Vote: st.HardState.GetVote(), Commit: st.HardState.GetCommit()},
			Voters: sortedIDs(g.confState.GetVoters()), Learners: sortedIDs(g.confState.GetLearners())}
		gi.FirstIndex, gi.LastIndex, gi.Raft = storedLogSpan(n.store, id)
		if id == MetaGroup {
			img.Metadata = n.meta
		} else {
			gi.Applied, gi.Features, gi.Incarnation = g.applied, g.features, g.incarnation
		}
		for _, t := range g.tenants {
			gi.Scopes = append(gi.Scopes, ScopeImage{Scope: g.scopeOf(t), Shard: g.scopes[t], OutboxStart: g.outboxStart[t]})
		}
		img.Groups = append(img.Groups, gi)
	}
	return img
}

// DurableImage reads the groups ids from what d has followed of the
// node's store, as a restart reads a store back: the raft state as
// stored, the applied index, features, incarnation and membership as
// recovery derives them from the stored snapshot and entries (the
// metadata group folded up to memory's applied index), and each scope
// with a row in the log, state, position, outbox or consumer-group table
// (read in place from the followed store, GroupImage.Raft).
func (n *Node) DurableImage(d *DurableStore, ids []uint64) (StoreImage, error) {
	st := d.f.Store()
	img := StoreImage{Node: n.cfg.ID}
	if st.GroupsLen() == 0 && !n.cfg.Join {
		return img, nil // nothing durable: a restart would bootstrap afresh
	}
	r := &Node{cfg: n.cfg, store: st, logger: n.logger, topo: n.topo}
	metaSnap, err := st.RaftStorage(MetaGroup).Snapshot()
	if err != nil {
		return StoreImage{}, fmt.Errorf("node %d: durable metadata snapshot: %w", n.cfg.ID, err)
	}
	meta, bootFeatures, err := r.bootMetadata(metaSnap)
	if err != nil {
		return StoreImage{}, err
	}
	r.meta = meta
	for _, id := range ids {
		mem := n.raftGroup(id)
		if mem == nil {
			panic(fmt.Sprintf("node %d: durable image of group %d, which it does not host", n.cfg.ID, id))
		}
		gi := GroupImage{ID: id}
		if id == MetaGroup {
			err = r.durableMeta(&gi, metaSnap, n.raftGroups[0].applied)
			img.Metadata = r.meta
		} else {
			err = r.durableShardGroup(&gi, d, mem, bootFeatures)
			gi.Scopes = r.durableScopes(id, d.Scopes())
		}
		if err != nil {
			return StoreImage{}, err
		}
		img.Groups = append(img.Groups, gi)
	}
	return img, nil
}

// durableRaft reads group id's stored hard state and raft log into gi
// from r's store, r being a node made only to read its store back.
func (r *Node) durableRaft(gi *GroupImage) error {
	hs, _, err := r.store.RaftStorage(gi.ID).InitialState()
	if err != nil {
		return fmt.Errorf("node %d: group %d durable hard state: %w", r.cfg.ID, gi.ID, err)
	}
	gi.HardState = hardStateOf(hs)
	gi.FirstIndex, gi.LastIndex, gi.Raft = storedLogSpan(r.store, gi.ID)
	return nil
}

// durableMeta reads the metadata group into gi and r.meta: its stored
// committed commands folded onto its snapshot up to index to (memory's
// applied index), as a booting node folds them.
func (r *Node) durableMeta(gi *GroupImage, metaSnap *raftpb.Snapshot, to uint64) error {
	if err := r.durableRaft(gi); err != nil {
		return err
	}
	_, cs, _, err := r.foldMetaTo(metaSnap, to)
	if err != nil {
		return err
	}
	gi.Voters, gi.Learners = sortedIDs(cs.GetVoters()), sortedIDs(cs.GetLearners())
	return nil
}

// durableShardGroup reads shard group mem.id into gi: its applied index,
// and its features, incarnation and membership as recovery derives them
// from the stored snapshot and the entries stored after it (folding only
// the entries applied since d's last image when it can).
func (r *Node) durableShardGroup(gi *GroupImage, d *DurableStore, mem *raftGroup, bootFeatures statemachine.Features) error {
	if err := r.durableRaft(gi); err != nil {
		return err
	}
	id := mem.id
	snapIndex := r.store.SnapshotIndex(id)
	applied := max(r.store.AppliedIndex(id), snapIndex)
	f := d.folds[id]
	if f != nil && f.snapIndex == snapIndex && f.bootFeatures == bootFeatures && f.g.applied <= applied {
		from := f.g.applied
		f.g.applied = applied
		for _, fold := range []func(*raftGroup, uint64) error{r.foldFeatures, r.foldIncarnation, r.foldConfState} {
			if err := fold(&f.g, from); err != nil {
				return err
			}
		}
	} else {
		snap, err := r.store.RaftStorage(id).Snapshot()
		if err != nil {
			return fmt.Errorf("node %d: group %d durable snapshot: %w", r.cfg.ID, id, err)
		}
		f = &durableFold{snapIndex: snapIndex, bootFeatures: bootFeatures,
			g: raftGroup{id: id, spec: mem.spec, shard: mem.shard, features: bootFeatures, applied: applied}}
		for _, recover := range []func(*raftGroup, *raftpb.Snapshot) error{r.recoverFeatures, r.recoverIncarnation, r.recoverConfState} {
			if err := recover(&f.g, snap); err != nil {
				return err
			}
		}
		d.folds[id] = f
	}
	gi.Applied, gi.Features, gi.Incarnation = f.g.applied, f.g.features, f.g.incarnation
	gi.Voters, gi.Learners = sortedIDs(f.g.confState.GetVoters()), sortedIDs(f.g.confState.GetLearners())
	return nil
}

// durableScopes lists the scopes of group id among scopes (the store's,
// ascending).
func (r *Node) durableScopes(id uint64, scopes []felix.Scope) []ScopeImage {
	var out []ScopeImage
	for _, sc := range scopes {
		if r.topo.raftGroupOf(sc.Namespace, sc.Stream, sc.Shard) == id {
			out = append(out, ScopeImage{Scope: sc})
		}
	}
	return out
}

// storedLogSpan is the first and last index of group id's raft log in st,
// and st to read its entries from.
func storedLogSpan(st *logstore.Store, id uint64) (first, last uint64, in *logstore.Store) {
	rs := st.RaftStorage(id)
	first, _ = rs.FirstIndex()
	last, _ = rs.LastIndex()
	return first, last, st
}

// sortedIDs returns a sorted copy of ids.
func sortedIDs(ids []uint64) []uint64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}
