package logstore

import (
	"fmt"
	"strings"
	"testing"

	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/vfs"
)

func scopeOf(tenant string, shard uint32) felix.Scope {
	return felix.Scope{Tenant: tenant, Namespace: "ns", Stream: "orders", Shard: shard}
}

func entry(index, term uint64, data string) *raftpb.Entry {
	return &raftpb.Entry{Index: new(index), Term: new(term), Type: raftpb.EntryNormal.Enum(), Data: []byte(data)}
}

// fullBatch is one applied record touching all five tables (log, state,
// position, outbox, consumer group), plus its raft entry, hard state and
// applied index.
func fullBatch(scope felix.Scope, group, offset uint64) *Batch {
	b := &Batch{Groups: []GroupWrite{{
		Group:        group,
		Entries:      []*raftpb.Entry{entry(offset, 1, fmt.Sprintf("rec-%d", offset))},
		HardState:    &raftpb.HardState{Term: new(uint64(1)), Commit: new(offset)},
		AppliedIndex: offset,
	}}}
	rec := felix.Record{
		Event:   felix.EventPublish,
		Payload: []byte(fmt.Sprintf("event-%d", offset)),
		Ops: []felix.StateOp{
			{Kind: felix.OpPut, Key: "k", Value: []byte(fmt.Sprintf("v%d", offset))},
		},
	}
	b.AddRecord(scope, offset, rec, &Intent{Event: felix.EventPublish, Data: []byte("subs")})
	b.Positions = append(b.Positions, PositionRow{Scope: scope, Position: Position{AppliedIndex: offset, NextOffset: offset + 1}})
	b.ConsumerGroups = append(b.ConsumerGroups, ConsumerGroupRow{Scope: scope, Group: statemachine.GroupState{
		Name: "workers", CommittedOffset: offset, DeliverNextOffset: offset + 1,
		Leases: []statemachine.Lease{{Offset: offset, ExpiryNs: int64(offset) * 1000}},
	}})
	return b
}

func openMem(t testing.TB, fs vfs.FS) *Store {
	t.Helper()
	s, err := Open(Options{FS: fs, Dir: "node1"})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return s
}

func mustCommit(t testing.TB, s *Store, b *Batch) {
	t.Helper()
	if err := s.Commit(b); err != nil {
		t.Fatalf("commit: %v", err)
	}
}

// dump renders everything the store holds, deterministically, for
// comparing two stores.
func dump(s *Store) string {
	var sb strings.Builder
	for _, id := range s.Groups() {
		g := s.groups[id]
		fmt.Fprintf(&sb, "group %d snap %x hs %x applied %d\n", id, marshal(g.snapshot), marshal(g.hardState), s.AppliedIndex(id))
		for _, e := range g.ents {
			fmt.Fprintf(&sb, "  ent %x\n", marshal(e))
		}
	}
	for _, sc := range s.Scopes() {
		for _, e := range s.LogScan(sc, 0, 0) {
			fmt.Fprintf(&sb, "log %s %d %+v\n", sc, e.Offset, e.Record)
		}
		for _, r := range s.StateScan(sc) {
			fmt.Fprintf(&sb, "state %s %q %q@%d\n", sc, r.Key, r.Value, r.Version)
		}
		if p, ok := s.PositionGet(sc); ok {
			fmt.Fprintf(&sb, "position %s %+v\n", sc, p)
		}
		for _, r := range s.OutboxScan(sc) {
			fmt.Fprintf(&sb, "outbox %s %d %+v\n", sc, r.Offset, r.Intent)
		}
		for _, g := range s.ConsumerGroupScan(sc) {
			fmt.Fprintf(&sb, "consumer group %s %+v\n", sc, g)
		}
	}
	fmt.Fprintf(&sb, "counts %+v\n", s.Counts())
	return sb.String()
}

func marshal(m proto.Message) []byte {
	if m == nil {
		return nil
	}
	p, err := marshalOpts.Marshal(m)
	if err != nil {
		panic(err)
	}
	return p
}
