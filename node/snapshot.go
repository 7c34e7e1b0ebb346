package node

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/logstore"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/wire"
)

// Raft log compaction and snapshots of a stream shard group.
//
// A group compacts its raft log behind its durable applied index, keeping
// CompactKeepEntries entries for followers that lag a little. The store
// keeps only the compaction point (index, term, ConfState): the group's
// content lives in the applied tables. When raft needs a snapshot for a
// follower that is behind the compaction point, the node builds it from
// memory at its applied index: every scope's retained log and consumer
// groups (state is the fold of the retained log, so no state table is
// carried) and its outbox: the first untrimmed offset and the events
// retention dropped from the log before the relay confirmed them (read
// from the store, which holds exactly the applied state between rounds).
// A follower installs it in one store commit that adds the log rows it
// lacks, rewrites the state rows that differ, raises the retained window,
// replaces the consumer groups, makes its outbox the snapshot's (deleting
// what the leader's relay trimmed, adding what it lacks), and drops its
// own raft log.
// The metadata group is never compacted: a follower catches it up from the
// log, and its stored snapshot keeps the bootstrap metadata.

// Compaction defaults, in raft entries.
const (
	// CompactEntriesMinDefault: a group compacts when its raft log holds
	// this many applied entries beyond what it keeps.
	CompactEntriesMinDefault = 1024
	// CompactKeepEntriesDefault: entries kept behind the applied index.
	CompactKeepEntriesDefault = 128
)

// groupSnapshotMagic opens a stream shard group's snapshot data.
const groupSnapshotMagic = 0xFD

// groupStorage is a group's raft.Storage: the store's, except that a
// snapshot is built from the node's applied state.
type groupStorage struct {
	*logstore.GroupStorage
	n *Node
	g *raftGroup
}

// InitialState implements raft.Storage: the stored hard state and the
// group's membership at its applied index (the store keeps only the
// compaction point's; see membership.go).
func (s *groupStorage) InitialState() (*raftpb.HardState, *raftpb.ConfState, error) {
	hs, _, err := s.GroupStorage.InitialState()
	if err != nil {
		return nil, nil, err
	}
	return hs, proto.Clone(raftpb.EnsureConfState(s.g.confState)).(*raftpb.ConfState), nil
}

// Snapshot implements raft.Storage: built from memory at the applied
// index. Raft asks for one only for a follower behind the log's start: a
// stream shard group's follower behind its compaction point, or a member
// that joined with an empty store (the metadata group's log starts after
// its bootstrap snapshot, whose membership does not name the newcomer).
func (s *groupStorage) Snapshot() (*raftpb.Snapshot, error) {
	term, err := s.GroupStorage.Term(s.g.applied)
	if err != nil {
		return nil, raft.ErrSnapshotTemporarilyUnavailable
	}
	s.n.stats.SnapshotsBuilt++
	data := encodeMetadata(s.n.meta)
	if s.g.id != MetaGroup {
		data = encodeGroupSnapshot(s.g, s.n.heldOutbox, s.n.snapshotWithoutGroups())
	}
	return &raftpb.Snapshot{
		Data: data,
		Metadata: &raftpb.SnapshotMetadata{
			Index:     new(s.g.applied),
			Term:      new(term),
			ConfState: s.g.confState,
		},
	}, nil
}

// maybeCompact adds a compaction of g's raft log to the batch when the
// log holds enough applied entries; durable is g's applied index already
// in the store (the compaction point never passes it).
func (n *Node) maybeCompact(b *logstore.Batch, g *raftGroup, durable uint64) {
	if g.id == MetaGroup {
		return
	}
	st := n.store.RaftStorage(g.id)
	first, _ := st.FirstIndex()
	keep, least := uint64(n.cfg.compactKeepEntries()), uint64(n.cfg.compactEntriesMin())
	if durable < first+keep+least {
		return
	}
	at := durable - keep
	if at < g.confIndex || at < g.incarnationIndex {
		return // the compaction point's membership or incarnation would be g's, which are later's
	}
	term, err := st.Term(at)
	if err != nil {
		panic(fmt.Sprintf("node %d: group %d: applied entry %d has no term in the store: %v", n.cfg.ID, g.id, at, err))
	}
	groupWrite(b, g.id).Compact = &logstore.Compaction{Snapshot: &raftpb.Snapshot{
		Data:     appendIncarnation([]byte{compactionMagic, featuresAt(g, at)}, g.incarnation),
		Metadata: &raftpb.SnapshotMetadata{Index: new(at), Term: new(term), ConfState: g.confState},
	}}
	n.stats.Compactions++
}

// heldOutboxMax bounds the held outbox events a snapshot may carry per
// scope; a decoder refuses more.
const heldOutboxMax = statemachine.RetainedLenCap

// scopeSnapshot is one scope as a group snapshot carries it.
type scopeSnapshot struct {
	tenant      string
	firstOffset uint64
	entries     []felix.Entry
	groups      []statemachine.GroupState
	// outboxStart is the scope's first untrimmed outbox offset; held are
	// the outbox events below firstOffset (retention dropped their
	// records, the relay has not confirmed them), ascending offsets in
	// [outboxStart, firstOffset).
	outboxStart uint64
	held        []felix.Entry
}

// heldOutbox returns tenant's outbox rows in g below its retained window
// (records retention dropped before the relay confirmed them), from the
// store, as entries whose records carry the event alone.
func (n *Node) heldOutbox(g *raftGroup, tenant string) []felix.Entry {
	first, start := g.scopes[tenant].FirstOffset(), g.outboxStart[tenant]
	if start >= first {
		return nil
	}
	rows := n.store.OutboxRange(n.outboxKey(g.scopeOf(tenant)), start, int(min(first-start, heldOutboxMax)))
	out := make([]felix.Entry, 0, len(rows))
	for _, r := range rows {
		if r.Offset < first {
			out = append(out, felix.Entry{Offset: r.Offset, Record: felix.Record{Event: r.Intent.Event, Payload: r.Intent.Data}})
		}
	}
	return out
}

// encodeGroupSnapshot encodes every scope of g: tenant, first offset, the
// retained records (contiguous from it), the consumer groups, the outbox
// start and the held outbox events (held gives them).
// withoutGroups is the SnapshotWithoutGroups defect: no consumer group.
func encodeGroupSnapshot(g *raftGroup, held func(*raftGroup, string) []felix.Entry, withoutGroups bool) []byte {
	e := enc{}
	e.u8(groupSnapshotMagic)
	e.u8(featuresAt(g, g.applied))
	e.b = appendIncarnation(e.b, g.incarnation)
	e.u32(uint32(len(g.tenants)))
	for _, t := range g.tenants {
		s := g.scopes[t]
		e.str(t)
		e.u64(s.FirstOffset())
		ents := s.Retained()
		e.u32(uint32(len(ents)))
		for i := range ents {
			e.record(g, &ents[i])
		}
		groups := s.Groups()
		if withoutGroups {
			groups = nil
		}
		e.u32(uint32(len(groups)))
		for _, gs := range groups {
			e.str(gs.Name)
			e.u64(gs.CommittedOffset)
			e.u64(gs.DeliverNextOffset)
			e.u32(uint32(len(gs.Leases)))
			for _, l := range gs.Leases {
				e.u64(l.Offset)
				e.u64(uint64(l.ExpiryNs))
			}
		}
		e.u64(g.outboxStart[t])
		hs := held(g, t)
		e.u32(uint32(len(hs)))
		for i := range hs {
			e.u64(hs[i].Offset)
			e.record(g, &hs[i])
		}
	}
	return e.b
}

// record appends ent's record as a length-prefixed frame.
func (e *enc) record(g *raftGroup, ent *felix.Entry) {
	at := len(e.b)
	e.u32(0)
	var err error
	if e.b, err = wire.AppendRecord(e.b, &ent.Record); err != nil {
		panic(fmt.Sprintf("group %d: applied record at %d does not encode: %v", g.id, ent.Offset, err))
	}
	binary.LittleEndian.PutUint32(e.b[at:], uint32(len(e.b)-at-4))
}

// decodeGroupSnapshot strictly decodes encodeGroupSnapshot's output for a
// group of spec, refusing counts beyond the spec's caps.
func decodeGroupSnapshot(p []byte, spec *StreamSpec) ([]scopeSnapshot, error) {
	d := dec{b: p}
	if m := d.u8("magic"); d.err == nil && m != groupSnapshotMagic {
		d.fail("magic %#x, want %#x", m, groupSnapshotMagic)
	}
	d.u8("features")    // read by snapshotFeatures
	d.u32("generation") // read by snapshotIncarnation
	d.flag("deleted")
	out := make([]scopeSnapshot, d.count("scopes", ScopesPerRaftGroupMax, 20))
	for i := range out {
		sc := &out[i]
		sc.tenant = d.str("tenant", felix.NameLenMax)
		if d.err == nil && i > 0 && sc.tenant <= out[i-1].tenant {
			d.fail("tenants not in strictly ascending order")
		}
		sc.firstOffset = d.u64("first offset")
		sc.entries = make([]felix.Entry, d.count("records", spec.RetainedLenMax, 4))
		for j := range sc.entries {
			raw := d.view("record", recordFrameLenMax)
			if d.err != nil {
				break
			}
			rec, err := wire.DecodeRecord(raw)
			if err != nil {
				d.fail("record %d of tenant %q: %v", j, sc.tenant, err)
				break
			}
			sc.entries[j] = felix.Entry{Offset: sc.firstOffset + uint64(j), Record: rec}
		}
		sc.groups = make([]statemachine.GroupState, d.count("consumer groups", spec.GroupsMax, 24))
		for j := range sc.groups {
			gs := &sc.groups[j]
			gs.Name = d.str("group", statemachine.GroupNameLenMax)
			gs.CommittedOffset = d.u64("committed offset")
			gs.DeliverNextOffset = d.u64("deliver-next offset")
			gs.Leases = make([]statemachine.Lease, d.count("leases", spec.LeasesPerGroupMax, 16))
			for k := range gs.Leases {
				gs.Leases[k] = statemachine.Lease{Offset: d.u64("lease offset"), ExpiryNs: int64(d.u64("lease expiry"))}
			}
		}
		decodeHeldOutbox(&d, sc)
	}
	return out, d.done()
}

// decodeHeldOutbox decodes one scope's outbox start and held events,
// refusing offsets that do not ascend within [outbox start, first offset).
func decodeHeldOutbox(d *dec, sc *scopeSnapshot) {
	sc.outboxStart = d.u64("outbox start")
	sc.held = make([]felix.Entry, d.count("held outbox events", heldOutboxMax, 12))
	for j := range sc.held {
		off := d.u64("held offset")
		raw := d.view("held event", recordFrameLenMax)
		if d.err != nil {
			return
		}
		if off < sc.outboxStart || off >= sc.firstOffset || (j > 0 && off <= sc.held[j-1].Offset) {
			d.fail("held outbox event %d of tenant %q at offset %d: not ascending within [%d, %d)", j, sc.tenant, off, sc.outboxStart, sc.firstOffset)
			return
		}
		rec, err := wire.DecodeRecord(raw)
		if err != nil {
			d.fail("held outbox event %d of tenant %q: %v", j, sc.tenant, err)
			return
		}
		sc.held[j] = felix.Entry{Offset: off, Record: rec}
	}
}

// installSnapshot restores g from a received snapshot: it rebuilds every
// scope from the snapshot's retained logs and adds, to the round's batch,
// the rows that make the store hold exactly that (see addInstallRows). It
// changes nothing and returns an error if the snapshot is malformed or
// contradicts what this replica applied.
func (n *Node) installSnapshot(b *logstore.Batch, g *raftGroup, snap *raftpb.Snapshot) error {
	idx := snap.GetMetadata().GetIndex()
	if idx <= g.applied {
		return fmt.Errorf("group %d: snapshot at index %d is not past the applied index %d", g.id, idx, g.applied)
	}
	if g.id == MetaGroup {
		return n.installMetaSnapshot(g, snap)
	}
	decoded, err := decodeGroupSnapshot(snap.GetData(), g.spec)
	if err != nil {
		return fmt.Errorf("group %d: snapshot at index %d: %w", g.id, idx, err)
	}
	if _, err := snapshotFeatures(snap.GetData()); err != nil {
		return fmt.Errorf("group %d: snapshot at index %d: %w", g.id, idx, err)
	}
	inc, err := snapshotIncarnation(snap.GetData())
	if err != nil {
		return fmt.Errorf("group %d: snapshot at index %d: %w", g.id, idx, err)
	}
	scopes := make(map[string]*statemachine.Shard, len(decoded))
	tenants := make([]string, 0, len(decoded))
	for i := range decoded {
		sc := &decoded[i]
		s, err := statemachine.Rebuild(statemachine.RebuildInput{Config: g.spec.shardConfig(g.scopeOf(sc.tenant)),
			StartOffset: sc.firstOffset, Entries: sc.entries, Groups: sc.groups})
		if err != nil {
			return fmt.Errorf("group %d: snapshot at index %d: tenant %q: %w", g.id, idx, sc.tenant, err)
		}
		if err := checkSupersedes(g.scopes[sc.tenant], s); err != nil {
			return fmt.Errorf("group %d: snapshot at index %d: tenant %q: %w", g.id, idx, sc.tenant, err)
		}
		scopes[sc.tenant], tenants = s, append(tenants, sc.tenant)
	}
	for _, t := range g.tenants {
		if scopes[t] == nil {
			return fmt.Errorf("group %d: snapshot at index %d lacks tenant %q, which this replica holds", g.id, idx, t)
		}
	}
	for i, t := range tenants {
		groupRows := len(b.ConsumerGroups)
		addInstallRows(b, g.scopeOf(t), g.scopes[t], scopes[t], idx)
		n.installOldGroups(b, groupRows, g.scopeOf(t), g.scopes[t])
		n.addInstallOutbox(b, g, t, g.scopes[t], &decoded[i])
	}
	g.scopes, g.tenants = scopes, tenants
	g.applied, g.confState, g.confIndex = idx, snap.GetMetadata().GetConfState(), idx
	if err := restoreSnapshotFeatures(g, snap.GetData(), idx); err != nil {
		panic(fmt.Sprintf("node %d: %v, after it was checked", n.cfg.ID, err))
	}
	g.ages, g.early = nil, nil
	if inc.order() > g.incarnation.order() {
		g.incarnation, g.incarnationIndex = inc, idx
	}
	n.stats.SnapshotsInstalled++
	n.notePath(PathSnapshotInstalled)
	return nil
}

// installMetaSnapshot restores the metadata from a metadata-group
// snapshot; the topology must be the one this node runs.
func (n *Node) installMetaSnapshot(g *raftGroup, snap *raftpb.Snapshot) error {
	meta, err := decodeMetadata(snap.GetData())
	if err != nil {
		return fmt.Errorf("metadata snapshot at index %d: %w", snap.GetMetadata().GetIndex(), err)
	}
	if t := newTopology(meta.Streams); t.groups != n.topo.groups {
		return fmt.Errorf("metadata snapshot at index %d has %d groups, this node runs %d", snap.GetMetadata().GetIndex(), t.groups, n.topo.groups)
	}
	n.meta = meta
	g.applied, g.confState = snap.GetMetadata().GetIndex(), snap.GetMetadata().GetConfState()
	g.confIndex = g.applied
	n.stats.SnapshotsInstalled++
	n.notePath(PathSnapshotInstalled)
	return nil
}

// checkSupersedes refuses a snapshot shard that does not extend old (nil:
// the replica has no such scope): its window may not start before old's,
// and every record both retain must be the same record.
func checkSupersedes(old, s *statemachine.Shard) error {
	if old == nil {
		return nil
	}
	if s.FirstOffset() < old.FirstOffset() || s.NextOffset() < old.NextOffset() {
		return fmt.Errorf("window [%d, %d) does not extend the applied [%d, %d)", s.FirstOffset(), s.NextOffset(), old.FirstOffset(), old.NextOffset())
	}
	mine := old.Retained()
	for _, e := range s.Retained() {
		if e.Offset >= old.NextOffset() {
			break
		}
		a, _ := wire.AppendRecord(nil, &e.Record)
		c, _ := wire.AppendRecord(nil, &mine[e.Offset-old.FirstOffset()].Record)
		if !bytes.Equal(a, c) {
			return fmt.Errorf("the record at offset %d differs from the one applied here", e.Offset)
		}
	}
	return nil
}

// addInstallRows adds the rows that turn the store's copy of a scope (old,
// nil if none) into s: log rows for the records it lacks, a
// state row for every key that differs, the position (which raises the
// retained window, dropping the rows below it) and every consumer group.
func addInstallRows(b *logstore.Batch, scope felix.Scope, old, s *statemachine.Shard, idx uint64) {
	have := uint64(0)
	var oldState []statemachine.KeyValue
	if old != nil {
		have, oldState = old.NextOffset(), old.State()
	}
	for _, e := range s.Retained() {
		if e.Offset >= have {
			b.Log = append(b.Log, logstore.LogRow{Scope: scope, Offset: e.Offset, Record: e.Record})
		}
	}
	newState := s.State()
	i, j := 0, 0
	for i < len(oldState) || j < len(newState) {
		switch {
		case j == len(newState) || (i < len(oldState) && oldState[i].Key < newState[j].Key):
			b.State = append(b.State, logstore.StateRow{Kind: logstore.WriteDelete, Scope: scope, Key: oldState[i].Key})
			i++
		case i == len(oldState) || newState[j].Key < oldState[i].Key:
			kv := newState[j]
			b.State = append(b.State, logstore.StateRow{Kind: logstore.WritePut, Scope: scope, Key: kv.Key, Value: kv.Value, Version: kv.Version})
			j++
		default:
			if kv := newState[j]; kv.Version != oldState[i].Version || !bytes.Equal(kv.Value, oldState[i].Value) {
				b.State = append(b.State, logstore.StateRow{Kind: logstore.WritePut, Scope: scope, Key: kv.Key, Value: kv.Value, Version: kv.Version})
			}
			i, j = i+1, j+1
		}
	}
	b.Positions = append(b.Positions, logstore.PositionRow{Scope: scope, Position: logstore.Position{AppliedIndex: idx, NextOffset: s.NextOffset(), FirstOffset: s.FirstOffset()}})
	for _, gs := range s.Groups() {
		b.ConsumerGroups = append(b.ConsumerGroups, logstore.ConsumerGroupRow{Scope: scope, Group: gs})
	}
}

// addInstallOutbox adds the outbox rows that turn the store's outbox of
// tenant in g (old: its applied shard, nil if none) into the snapshot's
// sc, and moves the outbox start: it deletes the rows the leader's relay
// trimmed and adds the events it lacks (held ones below the snapshot's
// window, then retained records), never one below the snapshot's start.
func (n *Node) addInstallOutbox(b *logstore.Batch, g *raftGroup, tenant string, old *statemachine.Shard, sc *scopeSnapshot) {
	key := n.outboxKey(g.scopeOf(tenant))
	have := uint64(0)
	if old != nil {
		have = old.NextOffset()
	}
	for o := g.outboxStart[tenant]; o < min(sc.outboxStart, have); o++ {
		b.Outbox = append(b.Outbox, logstore.OutboxRow{Kind: logstore.WriteDelete, Scope: key, Offset: o})
	}
	from := max(have, sc.outboxStart)
	for i := range sc.held {
		if e := &sc.held[i]; e.Offset >= from {
			b.Outbox = append(b.Outbox, logstore.OutboxRow{Kind: logstore.WritePut, Scope: key, Offset: e.Offset, Intent: *outboxIntent(&e.Record)})
		}
	}
	for i := range sc.entries {
		if e := &sc.entries[i]; e.Offset >= from {
			b.Outbox = append(b.Outbox, logstore.OutboxRow{Kind: logstore.WritePut, Scope: key, Offset: e.Offset, Intent: *outboxIntent(&e.Record)})
		}
	}
	if sc.outboxStart == 0 {
		delete(g.outboxStart, tenant)
		return
	}
	if g.outboxStart == nil {
		g.outboxStart = map[string]uint64{}
	}
	g.outboxStart[tenant] = sc.outboxStart
}
