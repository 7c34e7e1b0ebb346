package node

import (
	"go.etcd.io/raft/v3/raftpb"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/logstore"
	"github.com/felixsim/felixsim/statemachine"
)

// Views of a store image's tables, read in place for a checker that
// compares the two sides row by row (the runner's StoreMatchesMemory): a
// followed store's rows of one scope through the store's index, a shard
// through its ring, a group's raft log tail. Nothing is listed whole but
// by the *Rows methods, which a checker calls to name a difference.

// ScopeView reads one side of one scope: a StoredScope or a ShardScope.
type ScopeView interface {
	Window() (first, next uint64)
	LogLen() int
	LogAt(offset uint64) (felix.Record, bool)
	StateLen() int
	StateGet(key string) (value []byte, version uint64, ok bool)
	GroupsLen() int
	GroupGet(name string) (statemachine.GroupState, bool)
	LogRows() []felix.Entry
	StateRows() []statemachine.KeyValue
	GroupRows() []statemachine.GroupState
}

var (
	_ ScopeView = StoredScope{}
	_ ScopeView = ShardScope{}
)

// StoredScope reads one scope of a store (a DurableImage's: GroupImage.Raft).
type StoredScope struct {
	st   *logstore.Store
	sc   felix.Scope
	rows logstore.ScopeRows
}

// Stored returns the view of scope in g's store (valid until the store
// next changes).
func (g *GroupImage) Stored(scope felix.Scope) StoredScope {
	return StoredScope{st: g.Raft, sc: scope, rows: g.Raft.ScopeRows(scope)}
}

// Window is the position row's retained window [first, next) (zero
// without one).
func (s StoredScope) Window() (uint64, uint64) {
	p := s.rows.Position()
	return p.FirstOffset, p.NextOffset
}

// LogLen is how many log rows the scope holds.
func (s StoredScope) LogLen() int { return s.rows.LogLen() }

// LogAt reads the log row at offset.
func (s StoredScope) LogAt(offset uint64) (felix.Record, bool) { return s.rows.LogGet(offset) }

// StateLen is how many state rows the scope holds.
func (s StoredScope) StateLen() int { return s.rows.StateLen() }

// StateGet reads the state row of key.
func (s StoredScope) StateGet(key string) (value []byte, version uint64, ok bool) {
	v, ok := s.rows.StateGet(key)
	return v.Value, v.Version, ok
}

// GroupsLen is how many consumer groups the scope holds.
func (s StoredScope) GroupsLen() int { return s.rows.ConsumerGroupLen() }

// GroupGet reads consumer group name (its leases are the store's).
func (s StoredScope) GroupGet(name string) (statemachine.GroupState, bool) {
	return s.rows.ConsumerGroupGet(name)
}

// OutboxLen is how many outbox rows the scope holds.
func (s StoredScope) OutboxLen() int { return s.rows.OutboxLen() }

// OutboxAt reads the outbox row at offset, as an entry whose record
// carries the event alone.
func (s StoredScope) OutboxAt(offset uint64) (felix.Entry, bool) {
	in, ok := s.rows.OutboxGet(offset)
	return outboxEntryOf(offset, in), ok
}

// LogRows lists the log rows, ascending by offset.
func (s StoredScope) LogRows() []felix.Entry { return s.st.LogScan(s.sc, 0, 0) }

// StateRows lists the state rows, ascending by key.
func (s StoredScope) StateRows() []statemachine.KeyValue {
	var out []statemachine.KeyValue
	for _, r := range s.st.StateScan(s.sc) {
		out = append(out, statemachine.KeyValue{Key: r.Key, Value: r.Value, Version: r.Version})
	}
	return out
}

// GroupRows lists the consumer groups, ascending by name.
func (s StoredScope) GroupRows() []statemachine.GroupState { return s.st.ConsumerGroupScan(s.sc) }

// OutboxRows lists the outbox rows, ascending by offset (as OutboxAt).
func (s StoredScope) OutboxRows() []felix.Entry {
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

// ShardScope reads a shard (a MemoryImage's ScopeImage.Shard).
type ShardScope struct{ sh *statemachine.Shard }

// Memory returns the view of sc's shard.
func (sc *ScopeImage) Memory() ShardScope { return ShardScope{sh: sc.Shard} }

// Window is the shard's retained window [first, next).
func (s ShardScope) Window() (uint64, uint64) { return s.sh.FirstOffset(), s.sh.NextOffset() }

// LogLen is how many records the shard retains.
func (s ShardScope) LogLen() int { return int(s.sh.NextOffset() - s.sh.FirstOffset()) }

// LogAt reads the retained record at offset.
func (s ShardScope) LogAt(offset uint64) (felix.Record, bool) {
	if r, ok := s.sh.LogAt(offset); ok {
		return *r, true
	}
	return felix.Record{}, false
}

// StateLen is how many keys the shard's state holds.
func (s ShardScope) StateLen() int { return s.sh.StateLen() }

// StateGet reads key's value and version.
func (s ShardScope) StateGet(key string) (value []byte, version uint64, ok bool) {
	return s.sh.StateGet(key)
}

// GroupsLen is how many consumer groups the shard holds.
func (s ShardScope) GroupsLen() int { return s.sh.GroupsLen() }

// GroupGet reads consumer group name (its leases are the shard's).
func (s ShardScope) GroupGet(name string) (statemachine.GroupState, bool) { return s.sh.GroupGet(name) }

// LogRows lists the retained records, oldest first.
func (s ShardScope) LogRows() []felix.Entry { return s.sh.Retained() }

// StateRows lists the state, ascending by key.
func (s ShardScope) StateRows() []statemachine.KeyValue { return s.sh.State() }

// GroupRows lists the consumer groups, ascending by name.
func (s ShardScope) GroupRows() []statemachine.GroupState { return s.sh.Groups() }

// ShardMark is where a shard's list of changes stood when a checker last
// read it (statemachine.Shard.ChangesSince): the shard, and its count.
type ShardMark struct {
	sh    *statemachine.Shard
	count uint64
}

// Mark is sc's shard's mark now.
func (sc *ScopeImage) Mark() ShardMark { return ShardMark{sh: sc.Shard, count: sc.Shard.ChangeCount()} }

// ChangesSince calls fn with each state key (group false) and consumer
// group (group true) sc's shard changed since m; same is false (fn not
// called) when sc's shard is another than m's (installed from a snapshot,
// or rebuilt at boot), complete false when the shard no longer keeps them
// all.
func (sc *ScopeImage) ChangesSince(m ShardMark, fn func(group bool, key string)) (same, complete bool) {
	if m.sh != sc.Shard {
		return false, false
	}
	return true, sc.Shard.ChangesSince(m.count, fn)
}

// RaftTail reads a store's raft log of one group from the first index
// asked for up to its last, looked up once (GroupImage.RaftTail).
type RaftTail struct {
	st       *logstore.Store
	id, last uint64
	from     uint64
	ents     []*raftpb.Entry
}

// RaftTail returns a reader of g's stored raft log.
func (g *GroupImage) RaftTail() *RaftTail { return &RaftTail{st: g.Raft, id: g.ID, last: g.LastIndex} }

// RaftEntry returns the term and data of the entry at index, or false if
// the log does not hold it.
func (r *RaftTail) RaftEntry(index uint64) (uint64, []byte, bool) {
	if index < r.from || index-r.from >= uint64(len(r.ents)) {
		r.from, r.ents = index, r.st.RaftEntries(r.id, index, r.last+1)
		if len(r.ents) == 0 {
			return 0, nil, false
		}
	}
	e := r.ents[index-r.from]
	return e.GetTerm(), e.GetData(), true
}
