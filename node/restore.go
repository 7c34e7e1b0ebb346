package node

import (
	"bytes"
	"fmt"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
)

// rebuildScopes restores, from the store alone, every group's applied
// index and every scope's shard: the shard is folded from the scope's
// retained log rows (the window its position row names), its tail checked
// against the position row, and its state checked against the state table
// (both are the fold of the retained log, so they must be equal exactly);
// its consumer groups come from the consumer-group table.
func (n *Node) rebuildScopes() error {
	for _, id := range n.store.Groups() {
		applied := n.store.AppliedIndex(id)
		if applied == 0 {
			continue
		}
		g := n.raftGroup(id)
		if g == nil || g.id == MetaGroup {
			return fmt.Errorf("node %d: store holds applied index %d for group %d, which is no stream shard group", n.cfg.ID, applied, id)
		}
		g.applied = applied
	}
	for _, sc := range n.store.Scopes() {
		if n.isUnscopedOutboxKey(sc) {
			continue // the defect's rows: outbox entries of every tenant
		}
		g := n.raftGroup(n.topo.raftGroupOf(sc.Namespace, sc.Stream, sc.Shard))
		if g == nil || g.id == MetaGroup {
			return fmt.Errorf("node %d: store holds rows of %s, which no stream shard owns", n.cfg.ID, sc)
		}
		s, err := n.rebuildScope(g, sc)
		if err != nil {
			return err
		}
		g.install(sc.Tenant, s)
		n.recoverOutboxStart(g, sc.Tenant, s)
	}
	return nil
}

// rebuildScope folds one scope's retained log into a shard.
func (n *Node) rebuildScope(g *raftGroup, sc felix.Scope) (*statemachine.Shard, error) {
	pos, ok := n.store.PositionGet(sc)
	if !ok {
		return nil, fmt.Errorf("node %d: scope %s has rows but no position row", n.cfg.ID, sc)
	}
	cfg := g.spec.shardConfig(sc)
	entries := n.store.LogScan(sc, 0, 0)
	if uint64(len(entries)) != pos.NextOffset-pos.FirstOffset {
		return nil, fmt.Errorf("node %d: scope %s: position row names the window [%d, %d) but the log table holds %d rows",
			n.cfg.ID, sc, pos.FirstOffset, pos.NextOffset, len(entries))
	}
	groups := n.store.ConsumerGroupScan(sc)
	s, err := statemachine.Rebuild(statemachine.RebuildInput{Config: cfg, StartOffset: pos.FirstOffset, Entries: entries, Groups: groups})
	if err != nil {
		return nil, fmt.Errorf("node %d: rebuild %s from its retained log: %w", n.cfg.ID, sc, err)
	}
	if s.NextOffset() != pos.NextOffset {
		return nil, fmt.Errorf("node %d: scope %s: retained log ends at %d but the position row says %d", n.cfg.ID, sc, s.NextOffset(), pos.NextOffset)
	}
	if s.FirstOffset() != pos.FirstOffset {
		return nil, fmt.Errorf("node %d: scope %s: retained log starts at %d but the position row says %d", n.cfg.ID, sc, s.FirstOffset(), pos.FirstOffset)
	}
	if err := n.checkStateTable(sc, s); err != nil {
		return nil, err
	}
	return s, nil
}

// checkStateTable compares a rebuilt shard's state with the state table.
func (n *Node) checkStateTable(sc felix.Scope, s *statemachine.Shard) error {
	rows := n.store.StateScan(sc)
	kvs := s.State()
	if len(rows) != len(kvs) {
		return fmt.Errorf("node %d: scope %s: state table holds %d keys, the retained log folds to %d", n.cfg.ID, sc, len(rows), len(kvs))
	}
	for i := range rows {
		if rows[i].Key != kvs[i].Key || rows[i].Version != kvs[i].Version || !bytes.Equal(rows[i].Value, kvs[i].Value) {
			return fmt.Errorf("node %d: scope %s: state table has %q at version %d, the retained log folds to %q at version %d",
				n.cfg.ID, sc, rows[i].Key, rows[i].Version, kvs[i].Key, kvs[i].Version)
		}
	}
	return nil
}
