package runner

import (
	"fmt"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
)

// storeCheck is StoreMatchesMemory as the run goes: every broker's store
// file is followed as a crash would leave it (node.DurableStore decodes
// each durable byte once), and after each durable round it samples, and
// each boot, what the store holds is compared with what the broker holds
// in memory, on the raft groups the round touched (every group at boot):
// each scope from what its last comparison verified, reading the rows
// either side changed since (scopeBooks).
type storeCheck struct {
	// durable follows each broker identity's store, by raft id (looked
	// up, never ranged over); rounds counts the durable rounds seen.
	durable map[uint64]*node.DurableStore
	rounds  map[uint64]uint64
	// damaged is, per broker, the incarnation whose durable bytes met
	// damage (a corrupted sector): nothing is compared until it reopens.
	damaged map[uint64]*node.Node
	// everyRounds is the sampling rate: a round is compared when a hash
	// of the seed, the broker and the round's number is a multiple of it
	// (1: every round; 0: the check is off, for tests showing what a
	// targeted restart catches without it).
	everyRounds uint64
	seed        uint64
	seeded      bool
	// all is every raft group's id, for a boot's comparison.
	all []uint64
	// books are, per broker identity (by raft id; looked up, never ranged
	// over), what each scope's last comparison verified.
	books map[uint64]*scopeBooks
	// identities are each broker slot's identity last followed: a slot's
	// new identity (a replaced disk) retires the old one's follower and
	// books, each a decoded copy of a store nobody reads again.
	identities map[int]uint64
}

// StoreCheckEveryRounds is how sparsely the run compares a broker's store
// with its memory: about one durable round in this many, drawn from a
// hash of the run's seed, the broker and the round's number (docs/
// performance.md gives the cost), and every rare round (a snapshot
// installed, a log compacted or its prefix dropped, a membership change
// appended: node.DurableRound.Rare). Every boot is compared in full.
const StoreCheckEveryRounds = 64

func newStoreCheck() storeCheck {
	return storeCheck{durable: map[uint64]*node.DurableStore{}, rounds: map[uint64]uint64{}, damaged: map[uint64]*node.Node{},
		everyRounds: StoreCheckEveryRounds, books: map[uint64]*scopeBooks{}, identities: map[int]uint64{}}
}

// RoundDurable records what the round acknowledged (inrun_acked.go)
// and compares, on a sampled or rare round, the groups it touched.
func (ir *inRun) RoundDurable(n *node.Node, r *node.DurableRound) {
	ir.noteAcks(n, r)
	sc := &ir.store
	if sc.everyRounds == 0 {
		return
	}
	id := n.ID()
	if !sc.follow(ir, n) {
		return
	}
	if !sc.seeded {
		sc.seed, sc.seeded = ir.c.Config().Seed, true
	}
	sc.rounds[id]++
	if !r.Rare && mixSample(sc.seed, id, sc.rounds[id])%sc.everyRounds != 0 {
		return
	}
	ir.compareStore(n, r.Groups)
}

// storeOpened compares a broker just rebuilt from its store, every group.
func (ir *inRun) storeOpened(n *node.Node) {
	sc := &ir.store
	if sc.everyRounds == 0 || !sc.follow(ir, n) {
		return
	}
	if len(sc.all) != n.RaftGroups() {
		sc.all = sc.all[:0]
		for i := 0; i < n.RaftGroups(); i++ {
			sc.all = append(sc.all, node.MetaGroup+uint64(i))
		}
	}
	ir.compareStore(n, sc.all)
}

// follow reads what n's store made durable since the last call; false
// when the durable bytes are damaged (a corrupted sector), and then until
// the broker reopens.
func (sc *storeCheck) follow(ir *inRun, n *node.Node) bool {
	id := n.ID()
	if sc.damaged[id] == n {
		return false
	}
	delete(sc.damaged, id) // an incarnation that reopened its store
	slot := cluster.SimID(id)
	if old, ok := sc.identities[slot]; ok && old != id {
		sc.retire(old)
	}
	sc.identities[slot] = id
	d := sc.durable[id]
	if d == nil {
		d = node.NewDurableStore()
		sc.durable[id] = d
	}
	if err := d.Follow(n, ir.c.World.Mem(cluster.SimID(id))); err != nil {
		sc.damaged[id] = n
		return false
	}
	return true
}

// retire forgets broker identity id, whose slot runs another now: an
// identity never comes back (cluster.Replacement).
func (sc *storeCheck) retire(id uint64) {
	delete(sc.durable, id)
	delete(sc.rounds, id)
	delete(sc.damaged, id)
	delete(sc.books, id)
}

// compareStore compares groups of n's durable store with its memory,
// each scope from what its last comparison verified (scopeBook).
func (ir *inRun) compareStore(n *node.Node, groups []uint64) {
	ds := ir.store.durable[n.ID()]
	durable, err := n.DurableImage(ds, groups)
	if err != nil {
		ir.note(properties.InvariantStoreMatchesMemory, properties.InvariantStoreMatchesMemory.Errorf("%s: a restart could not read its store back: %v", ir.name(n.ID()), err))
		return
	}
	memory := n.MemoryImage(groups)
	books := ir.store.booksOf(n.ID())
	m := storeImageOf(ir.name(n.ID()), &memory, func(g *node.GroupImage, k int) properties.StoreScope {
		if k == 0 {
			books.prepare(g)
		}
		sc, b := &g.Scopes[k], &books.next[g.ID][k]
		return properties.StoreScope{Scope: sc.Scope, Tables: viewTables{v: sc.Memory(), sc: sc.Scope}, OutboxStart: sc.OutboxStart,
			Changes: shardChangesSince(b, sc), Verified: &b.verified}
	})
	d := storeImageOf(ir.name(n.ID()), &durable, func(g *node.GroupImage, k int) properties.StoreScope {
		sc := &g.Scopes[k]
		stored := g.Stored(sc.Scope)
		c := ds.TakeChanges(sc.Scope)
		out := properties.StoreScope{Scope: sc.Scope, Tables: viewTables{v: stored, sc: sc.Scope}, Outbox: stored,
			Changes: properties.ScopeChanges{KeysAll: c.KeysOverflow, StateKeys: c.StateKeys, Groups: c.ConsumerGroups,
				LogWritten: properties.OffsetSpan(c.LogWritten), LogDeleted: properties.OffsetSpan(c.LogDeleted),
				OutboxWritten: properties.OffsetSpan(c.OutboxWritten), OutboxDeleted: properties.OffsetSpan(c.OutboxDeleted)}}
		if b := books.lookup(g.ID, sc.Scope); b == nil || b.generation != ds.Generation() {
			out.Changes.All = true
		}
		return out
	})
	ir.note(properties.InvariantStoreMatchesMemory, properties.StoreMatchesMemory(&d, &m))
	books.keep(&memory, ds.Generation())
}

// shardChangesSince is what memory changed in scope sc since b's
// comparison: everything when its shard is another one (a snapshot
// installed, a restart), else the state keys and groups it lists.
func shardChangesSince(b *scopeBook, sc *node.ScopeImage) properties.ScopeChanges {
	var c properties.ScopeChanges
	same, complete := sc.ChangesSince(b.mark, func(group bool, key string) {
		if group {
			c.Groups = append(c.Groups, key)
		} else {
			c.StateKeys = append(c.StateKeys, key)
		}
	})
	c.All, c.KeysAll = !same, !complete
	return c
}

// mixSample hashes a broker's round for sampling (SplitMix64's finalizer
// over the three words), independent of every random stream of the run.
func mixSample(seed, broker, round uint64) uint64 {
	z := seed ^ broker*0x9e3779b97f4a7c15 ^ round*0xbf58476d1ce4e5b9
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// storeImageOf converts a node's store image to the check's, scope k of
// group g by scopeOf(g, k).
func storeImageOf(broker string, img *node.StoreImage, scopeOf func(g *node.GroupImage, k int) properties.StoreScope) properties.StoreImage {
	out := properties.StoreImage{Broker: broker}
	if img.Metadata != nil {
		out.Fleet = fmt.Sprintf("%+v", *img.Metadata)
	}
	for i := range img.Groups {
		g := &img.Groups[i]
		sg := properties.StoreGroup{ID: g.ID, HardState: hardStateOf(g.HardState), Applied: g.Applied, Incarnation: g.Incarnation.String(),
			Voters: g.Voters, Learners: g.Learners, FirstIndex: g.FirstIndex, LastIndex: g.LastIndex, Raft: g.RaftTail()}
		if g.Features.AtomicCommitFinalized {
			sg.Features = node.FeatureAtomicCommit
		}
		for k := range g.Scopes {
			sg.Scopes = append(sg.Scopes, scopeOf(g, k))
		}
		out.Groups = append(out.Groups, sg)
	}
	return out
}
