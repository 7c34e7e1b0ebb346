package runner

import (
	"fmt"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/workload"
)

// storeCheck is StoreMatchesMemory as the run goes: every broker's store
// file is followed as a crash would leave it (node.DurableStore decodes
// each durable byte once), and after each durable round it samples, and
// each boot, what the store holds is compared with what the broker holds
// in memory, on the raft groups the round touched (every group at boot).
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
		everyRounds: StoreCheckEveryRounds}
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

// compareStore compares groups of n's durable store with its memory.
func (ir *inRun) compareStore(n *node.Node, groups []uint64) {
	durable, err := n.DurableImage(ir.store.durable[n.ID()], groups)
	if err != nil {
		ir.note(properties.InvariantStoreMatchesMemory, properties.InvariantStoreMatchesMemory.Errorf("%s: a restart could not read its store back: %v", ir.name(n.ID()), err))
		return
	}
	memory := n.MemoryImage(groups)
	d, m := storeImageOf(ir.name(n.ID()), &durable), storeImageOf(ir.name(n.ID()), &memory)
	ir.note(properties.InvariantStoreMatchesMemory, properties.StoreMatchesMemory(&d, &m))
}

// mixSample hashes a broker's round for sampling (SplitMix64's finalizer
// over the three words), independent of every random stream of the run.
func mixSample(seed, broker, round uint64) uint64 {
	z := seed ^ broker*0x9e3779b97f4a7c15 ^ round*0xbf58476d1ce4e5b9
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// storeImageOf converts a node's store image to the check's.
func storeImageOf(broker string, img *node.StoreImage) properties.StoreImage {
	out := properties.StoreImage{Broker: broker}
	if img.Metadata != nil {
		out.Fleet = fmt.Sprintf("%+v", *img.Metadata)
	}
	for i := range img.Groups {
		g := &img.Groups[i]
		sg := properties.StoreGroup{ID: g.ID, HardState: hardStateOf(g.HardState), Applied: g.Applied, Incarnation: g.Incarnation.String(),
			Voters: g.Voters, Learners: g.Learners}
		if g.Features.AtomicCommitFinalized {
			sg.Features = node.FeatureAtomicCommit
		}
		sg.FirstIndex, sg.LastIndex = g.FirstIndex, g.LastIndex
		sg.Tail = make([]properties.RaftEntry, len(g.Tail))
		for k, e := range g.Tail {
			sg.Tail[k] = properties.RaftEntry{Term: e.Term, Data: e.Data}
		}
		for k := range g.Scopes {
			sg.Scopes = append(sg.Scopes, storeScopeOf(&g.Scopes[k]))
		}
		out.Groups = append(out.Groups, sg)
	}
	return out
}

// storeScopeOf converts one scope of a node's store image.
func storeScopeOf(s *node.ScopeImage) properties.StoreScope {
	out := properties.StoreScope{Scope: s.Scope, FirstOffset: s.Shard.FirstOffset, NextOffset: s.Shard.NextOffset,
		Log: s.Shard.Entries, OutboxStart: s.OutboxStart, Outbox: s.Outbox,
		Groups: workload.ScopeGroupsOf(s.Scope, s.Shard.Groups).Groups}
	out.State = make([]properties.StoreSlot, len(s.Shard.State))
	for k, kv := range s.Shard.State {
		out.State[k] = properties.StoreSlot{Key: kv.Key, Value: kv.Value, Version: kv.Version}
	}
	return out
}
