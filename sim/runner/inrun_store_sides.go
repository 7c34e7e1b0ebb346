package runner

import (
	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/logstore"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/workload"
	"github.com/felixsim/felixsim/statemachine"
)

// The two sides of StoreMatchesMemory, read in place: a followed store's
// tables of one scope (through the store's index) and a shard (through its
// ring), as properties.ScopeTables.

// storedScope reads one scope of a store.
type storedScope struct {
	st *logstore.Store
	sc felix.Scope
}

func (s storedScope) Window() (uint64, uint64) {
	p, _ := s.st.PositionGet(s.sc)
	return p.FirstOffset, p.NextOffset
}
func (s storedScope) LogLen() int                              { return s.st.LogLen(s.sc) }
func (s storedScope) LogAt(offset uint64) (felix.Record, bool) { return s.st.LogGet(s.sc, offset) }
func (s storedScope) StateLen() int                            { return s.st.StateLen(s.sc) }
func (s storedScope) StateAt(key string) (properties.StoreSlot, bool) {
	v, ok := s.st.StateGet(s.sc, key)
	return properties.StoreSlot{Key: key, Value: v.Value, Version: v.Version}, ok
}
func (s storedScope) GroupsLen() int { return s.st.ConsumerGroupLen(s.sc) }
func (s storedScope) GroupAt(name string) (properties.GroupView, bool) {
	g, ok := s.st.ConsumerGroupGet(s.sc, name)
	return workload.GroupViewOf(&g), ok
}
func (s storedScope) LogRows() []felix.Entry { return s.st.LogScan(s.sc, 0, 0) }
func (s storedScope) StateRows() []properties.StoreSlot {
	var out []properties.StoreSlot
	for _, r := range s.st.StateScan(s.sc) {
		out = append(out, properties.StoreSlot{Key: r.Key, Value: r.Value, Version: r.Version})
	}
	return out
}
func (s storedScope) GroupRows() []properties.GroupView {
	return workload.ScopeGroupsOf(s.sc, s.st.ConsumerGroupScan(s.sc)).Groups
}
func (s storedScope) OutboxLen() int { return s.st.OutboxLen(s.sc) }
func (s storedScope) OutboxAt(offset uint64) (felix.Entry, bool) {
	in, ok := s.st.OutboxGet(s.sc, offset)
	return outboxEntryOf(offset, in), ok
}
func (s storedScope) OutboxRows() []felix.Entry {
	var out []felix.Entry
	for _, r := range s.st.OutboxScan(s.sc) {
		out = append(out, outboxEntryOf(r.Offset, r.Intent))
	}
	return out
}

// outboxEntryOf is an outbox row as an entry whose record carries the
// event alone.
func outboxEntryOf(offset uint64, in logstore.Intent) felix.Entry {
	return felix.Entry{Offset: offset, Record: felix.Record{Event: in.Event, Payload: in.Data}}
}

// shardScope reads a shard.
type shardScope struct {
	sh *statemachine.Shard
	sc felix.Scope
}

func (s shardScope) Window() (uint64, uint64) { return s.sh.FirstOffset(), s.sh.NextOffset() }
func (s shardScope) LogLen() int              { return int(s.sh.NextOffset() - s.sh.FirstOffset()) }
func (s shardScope) LogAt(offset uint64) (felix.Record, bool) {
	if r, ok := s.sh.LogAt(offset); ok {
		return *r, true
	}
	return felix.Record{}, false
}
func (s shardScope) StateLen() int { return s.sh.StateLen() }
func (s shardScope) StateAt(key string) (properties.StoreSlot, bool) {
	v, version, ok := s.sh.StateGet(key)
	return properties.StoreSlot{Key: key, Value: v, Version: version}, ok
}
func (s shardScope) GroupsLen() int { return s.sh.GroupsLen() }
func (s shardScope) GroupAt(name string) (properties.GroupView, bool) {
	g, ok := s.sh.GroupGet(name)
	return workload.GroupViewOf(&g), ok
}
func (s shardScope) LogRows() []felix.Entry { return s.sh.Retained() }
func (s shardScope) StateRows() []properties.StoreSlot {
	var out []properties.StoreSlot
	for _, kv := range s.sh.State() {
		out = append(out, properties.StoreSlot{Key: kv.Key, Value: kv.Value, Version: kv.Version})
	}
	return out
}
func (s shardScope) GroupRows() []properties.GroupView {
	return workload.ScopeGroupsOf(s.sc, s.sh.Groups()).Groups
}

// raftOf reads a store's raft log of one group: the entries from the
// first index asked for up to last, looked up once.
type raftOf struct {
	st       *logstore.Store
	id, last uint64
	from     uint64
	ents     []*raftpb.Entry
}

func (r *raftOf) RaftEntry(index uint64) (uint64, []byte, bool) {
	if index < r.from || index-r.from >= uint64(len(r.ents)) {
		r.from, r.ents = index, r.st.RaftEntries(r.id, index, r.last+1)
		if len(r.ents) == 0 {
			return 0, nil, false
		}
	}
	e := r.ents[index-r.from]
	return e.GetTerm(), e.GetData(), true
}

// storedChangesOf converts a follower's report of one scope's changes.
func storedChangesOf(c *logstore.ScopeChanges) properties.ScopeChanges {
	span := func(s logstore.OffsetSpan) properties.OffsetSpan {
		return properties.OffsetSpan{Lo: s.Lo, Hi: s.Hi, Any: s.Any}
	}
	return properties.ScopeChanges{KeysAll: c.KeysOverflow, LogWritten: span(c.LogWritten), LogDeleted: span(c.LogDeleted),
		OutboxWritten: span(c.OutboxWritten), OutboxDeleted: span(c.OutboxDeleted), StateKeys: c.StateKeys, Groups: c.ConsumerGroups}
}
