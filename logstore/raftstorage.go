package logstore

import (
	"fmt"
	"slices"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// GroupStorage is the raft.Storage of one raft group, read from the store's
// in-memory index. Writes go through Store.Commit (GroupWrite).
type GroupStorage struct {
	s  *Store
	id uint64
	// g is the store's group once it has one (raft asks for FirstIndex and
	// Term many times a round; a map lookup each time showed in profiles).
	g *group
}

var _ raft.Storage = (*GroupStorage)(nil)

// RaftStorage returns the raft.Storage of group id; a group never written
// reads as empty.
func (s *Store) RaftStorage(id uint64) *GroupStorage { return &GroupStorage{s: s, id: id} }

// Groups returns the ids of every group with persisted raft state, ascending.
func (s *Store) Groups() []uint64 {
	ids := make([]uint64, 0, len(s.groups))
	for id := range s.groups {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// AppliedIndex returns the applied index last stored for group id (by a
// GroupWrite's AppliedIndex), or 0 if none was.
func (s *Store) AppliedIndex(id uint64) uint64 {
	if g, ok := s.groups[id]; ok {
		return g.applied
	}
	return 0
}

func (gs *GroupStorage) group() *group {
	if gs.g != nil {
		return gs.g
	}
	if g, ok := gs.s.groups[gs.id]; ok {
		gs.g = g
		return g
	}
	return newGroup()
}

// InitialState implements raft.Storage.
func (gs *GroupStorage) InitialState() (*raftpb.HardState, *raftpb.ConfState, error) {
	g := gs.group()
	cs := raftpb.EnsureConfState(g.snapshot.GetMetadata().GetConfState())
	var hs *raftpb.HardState
	if g.hardState != nil {
		hs = proto.Clone(g.hardState).(*raftpb.HardState)
	}
	return hs, proto.Clone(cs).(*raftpb.ConfState), nil
}

// Entries implements raft.Storage.
func (gs *GroupStorage) Entries(lo, hi, maxSize uint64) ([]*raftpb.Entry, error) {
	g := gs.group()
	offset := g.ents[0].GetIndex()
	if lo <= offset {
		return nil, raft.ErrCompacted
	}
	if hi > g.lastIndex()+1 {
		panic(fmt.Sprintf("logstore: group %d entries hi %d is beyond last index %d", gs.id, hi, g.lastIndex()))
	}
	if len(g.ents) == 1 {
		return nil, raft.ErrUnavailable
	}
	ents := g.ents[lo-offset : hi-offset]
	out := make([]*raftpb.Entry, 0, len(ents))
	size := uint64(0)
	for _, e := range ents {
		size += uint64(entrySize(e))
		if len(out) > 0 && size > maxSize {
			break
		}
		out = append(out, e)
	}
	return out, nil
}

// Term implements raft.Storage.
func (gs *GroupStorage) Term(i uint64) (uint64, error) {
	g := gs.group()
	offset := g.ents[0].GetIndex()
	if i < offset {
		return 0, raft.ErrCompacted
	}
	if i-offset >= uint64(len(g.ents)) {
		return 0, raft.ErrUnavailable
	}
	return g.ents[i-offset].GetTerm(), nil
}

// LastIndex implements raft.Storage.
func (gs *GroupStorage) LastIndex() (uint64, error) { return gs.group().lastIndex(), nil }

// FirstIndex implements raft.Storage.
func (gs *GroupStorage) FirstIndex() (uint64, error) { return gs.group().firstIndex(), nil }

// Snapshot implements raft.Storage.
func (gs *GroupStorage) Snapshot() (*raftpb.Snapshot, error) {
	return proto.Clone(gs.group().snapshot).(*raftpb.Snapshot), nil
}
