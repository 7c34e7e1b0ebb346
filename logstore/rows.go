package logstore

import (
	"fmt"

	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/wire"
)

// Minimum encoded sizes, used to refuse element counts that cannot fit.
const (
	scopeBytesMin  = 4
	rowBytesMin    = 2
	groupBytesMin  = 11
	entryBytesMin  = 1
	recordBytesMin = 5
)

// recordLenMax bounds one encoded record, in bytes: the payload, the
// largest operation list and framing.
const recordLenMax = frameLenMax

// protoLenMax is the largest encoded raft message (entry, snapshot, hard
// state) a frame may hold.
const protoLenMax = frameLenMax

var marshalOpts = proto.MarshalOptions{Deterministic: true}

func (e *enc) scope(s felix.Scope) {
	e.str(s.Tenant)
	e.str(s.Namespace)
	e.str(s.Stream)
	e.uvar(uint64(s.Shard))
}

// scope decodes a scope; its names are shared with the store's earlier
// rows rather than allocated again (a store's rows name a few scopes).
func (d *dec) scope() felix.Scope {
	var s felix.Scope
	s.Tenant = d.name("tenant")
	s.Namespace = d.name("namespace")
	s.Stream = d.name("stream")
	shard := d.uvar()
	if d.err == nil && shard > 1<<32-1 {
		d.fail(fmt.Errorf("shard %d exceeds 32 bits", shard))
	}
	s.Shard = uint32(shard)
	return s
}

// name decodes a scope name, as a string the store already holds when
// it decoded the same name before (d.names).
func (d *dec) name(what string) string {
	return d.names.intern(d.take(d.lenField(what, felix.NameLenMax)))
}

// record appends r as a wire record frame (the canonical record codec),
// length-prefixed; validateShape made sure it encodes.
func (e *enc) record(r *felix.Record) {
	n := wire.RecordFrameLen(r)
	e.uvar(uint64(n))
	start := len(e.b)
	b, err := wire.AppendRecord(e.b, r)
	if err != nil {
		panic(fmt.Sprintf("logstore: a validated record does not encode: %v", err))
	}
	if len(b)-start != n {
		panic(fmt.Sprintf("logstore: record encoded as %d bytes, wire.RecordFrameLen said %d", len(b)-start, n))
	}
	e.b = b
}

// record decodes a length-prefixed record straight from the payload:
// wire.DecodeRecord copies the bytes it reads before the record refers to
// them (TestDecodeRecordCopies), so the payload is not copied first.
func (d *dec) record() felix.Record {
	p := d.take(d.lenField("record", recordLenMax))
	if d.err != nil {
		return felix.Record{}
	}
	r, err := wire.DecodeRecord(p)
	if err != nil {
		d.fail(err)
	}
	return r
}

func nilIfEmpty(p []byte) []byte {
	if len(p) == 0 {
		return nil
	}
	return p
}

func (e *enc) message(m proto.Message) {
	n := marshalOpts.Size(m)
	e.uvar(uint64(n))
	start := len(e.b)
	b, err := marshalOpts.MarshalAppend(e.b, m)
	if err != nil {
		panic(fmt.Sprintf("logstore: marshal %T: %v", m, err))
	}
	if len(b)-start != n {
		panic(fmt.Sprintf("logstore: %T marshalled as %d bytes, its size said %d", m, len(b)-start, n))
	}
	e.b = b
}

// entry decodes a length-prefixed raft entry into e (zero), by hand when
// it holds only raft's fields (decodeKnownEntry), else by proto.
func (d *dec) entry(e *raftpb.Entry, sc *entryScalars) {
	p := d.take(d.lenField("entry", protoLenMax))
	if d.err != nil || decodeKnownEntry(p, e, sc) {
		return
	}
	*e = raftpb.Entry{}
	if err := proto.Unmarshal(p, e); err != nil {
		d.fail(fmt.Errorf("entry: %v", err))
	}
}

// hardState decodes a length-prefixed hard state, by hand when it holds
// only raft's fields (decodeKnownHardState), else by proto.
func (d *dec) hardState() *raftpb.HardState {
	p := d.take(d.lenField("hard state", protoLenMax))
	if d.err != nil {
		return nil
	}
	if hs := decodeKnownHardState(p); hs != nil {
		return hs
	}
	hs := &raftpb.HardState{}
	if err := proto.Unmarshal(p, hs); err != nil {
		d.fail(fmt.Errorf("hard state: %v", err))
	}
	return hs
}

// message decodes a length-prefixed raft message into m; proto.Unmarshal
// copies what it keeps, so the payload is not copied first.
func (d *dec) message(what string, m proto.Message) {
	p := d.take(d.lenField(what, protoLenMax))
	if d.err != nil {
		return
	}
	if err := proto.Unmarshal(p, m); err != nil {
		d.fail(fmt.Errorf("%s: %v", what, err))
	}
}

// clearedRows returns n zero rows in reuse's array if it has room, else in
// a new one: a decoder given the rows of an earlier transaction to reuse
// sets only the fields it reads, so no field of that transaction's rows
// may survive into the next.
func clearedRows[R any](reuse []R, n int) []R {
	rows := reuseRows(reuse, n)
	clear(rows)
	return rows
}

// encodeGroups encodes the raft frame payload.
func encodeGroups(gs []GroupWrite) []byte {
	var e enc
	e.groups(gs)
	return e.b
}

func (e *enc) groups(gs []GroupWrite) {
	e.uvar(uint64(len(gs)))
	for i := range gs {
		g := &gs[i]
		e.u64(g.Group)
		e.boolean(g.Snapshot != nil)
		if g.Snapshot != nil {
			e.message(g.Snapshot)
		}
		e.uvar(uint64(len(g.Entries)))
		for _, ent := range g.Entries {
			e.entry(ent)
		}
		e.boolean(g.HardState != nil)
		if g.HardState != nil {
			e.hardState(g.HardState)
		}
		e.boolean(g.Compact != nil)
		if g.Compact != nil {
			e.message(g.Compact.Snapshot)
		}
		e.uvar(g.AppliedIndex)
	}
}

func decodeGroups(p []byte, reuse []GroupWrite) ([]GroupWrite, error) {
	d := dec{b: p}
	gs := clearedRows(reuse, d.count("group writes", groupBytesMin))
	for i := range gs {
		g := &gs[i]
		g.Group = d.u64()
		if d.boolean() {
			g.Snapshot = &raftpb.Snapshot{}
			d.message("snapshot", g.Snapshot)
		}
		if n := d.count("entries", entryBytesMin); n > 0 {
			g.Entries = make([]*raftpb.Entry, n)
			ents := make([]raftpb.Entry, n)    // one allocation for the group's entries,
			scalars := make([]entryScalars, n) // and one for their scalar fields
			for j := range g.Entries {
				g.Entries[j] = &ents[j]
				d.entry(g.Entries[j], &scalars[j])
			}
		}
		if d.boolean() {
			g.HardState = d.hardState()
		}
		if d.boolean() {
			g.Compact = &Compaction{Snapshot: &raftpb.Snapshot{}}
			d.message("compaction snapshot", g.Compact.Snapshot)
		}
		g.AppliedIndex = d.uvar()
	}
	return gs, d.done()
}

// encodeLog encodes the log frame payload.
func encodeLog(rows []LogRow) []byte {
	var e enc
	e.logRows(rows)
	return e.b
}

func (e *enc) logRows(rows []LogRow) {
	e.uvar(uint64(len(rows)))
	for i := range rows {
		e.scope(rows[i].Scope)
		e.uvar(rows[i].Offset)
		e.record(&rows[i].Record)
	}
}

func decodeLog(p []byte, reuse []LogRow, names *scopeNames) ([]LogRow, error) {
	d := dec{b: p, names: names}
	rows := clearedRows(reuse, d.count("log rows", scopeBytesMin+recordBytesMin))
	for i := range rows {
		rows[i].Scope = d.scope()
		rows[i].Offset = d.uvar()
		rows[i].Record = d.record()
	}
	return rows, d.done()
}

// encodeState encodes the state frame payload.
func encodeState(rows []StateRow) []byte {
	var e enc
	e.stateRows(rows)
	return e.b
}

func (e *enc) stateRows(rows []StateRow) {
	e.uvar(uint64(len(rows)))
	for i := range rows {
		e.u8(uint8(rows[i].Kind))
		e.scope(rows[i].Scope)
		e.str(rows[i].Key)
		e.bytes(rows[i].Value)
		e.uvar(rows[i].Version)
	}
}

func decodeState(p []byte, reuse []StateRow, names *scopeNames) ([]StateRow, error) {
	d := dec{b: p, names: names}
	rows := clearedRows(reuse, d.count("state rows", scopeBytesMin+rowBytesMin))
	for i := range rows {
		rows[i].Kind = WriteKind(d.u8())
		rows[i].Scope = d.scope()
		rows[i].Key = d.str("key", felix.KeyLenMax)
		rows[i].Value = nilIfEmpty(d.bytes("value", felix.ValueLenMax))
		rows[i].Version = d.uvar()
	}
	return rows, d.done()
}

// encodePositions encodes the position frame payload.
func encodePositions(rows []PositionRow) []byte {
	var e enc
	e.positionRows(rows)
	return e.b
}

func (e *enc) positionRows(rows []PositionRow) {
	e.uvar(uint64(len(rows)))
	for i := range rows {
		e.scope(rows[i].Scope)
		e.uvar(rows[i].Position.AppliedIndex)
		e.uvar(rows[i].Position.NextOffset)
		e.uvar(rows[i].Position.FirstOffset)
	}
}

func decodePositions(p []byte, reuse []PositionRow, names *scopeNames) ([]PositionRow, error) {
	d := dec{b: p, names: names}
	rows := clearedRows(reuse, d.count("position rows", scopeBytesMin+rowBytesMin+1))
	for i := range rows {
		rows[i].Scope = d.scope()
		rows[i].Position.AppliedIndex = d.uvar()
		rows[i].Position.NextOffset = d.uvar()
		rows[i].Position.FirstOffset = d.uvar()
	}
	return rows, d.done()
}

// encodeOutbox encodes the outbox frame payload.
func encodeOutbox(rows []OutboxRow) []byte {
	var e enc
	e.outboxRows(rows)
	return e.b
}

func (e *enc) outboxRows(rows []OutboxRow) {
	e.uvar(uint64(len(rows)))
	for i := range rows {
		e.u8(uint8(rows[i].Kind))
		e.scope(rows[i].Scope)
		e.uvar(rows[i].Offset)
		e.u8(uint8(rows[i].Intent.Event))
		e.bytes(rows[i].Intent.Data)
	}
}

func decodeOutbox(p []byte, reuse []OutboxRow, names *scopeNames) ([]OutboxRow, error) {
	d := dec{b: p, names: names}
	rows := clearedRows(reuse, d.count("outbox rows", scopeBytesMin+rowBytesMin+2))
	for i := range rows {
		rows[i].Kind = WriteKind(d.u8())
		rows[i].Scope = d.scope()
		rows[i].Offset = d.uvar()
		rows[i].Intent.Event = felix.EventKind(d.u8())
		rows[i].Intent.Data = nilIfEmpty(d.bytes("intent data", IntentDataLenMax))
	}
	return rows, d.done()
}

// encodeConsumerGroups encodes the consumer-group frame payload.
func encodeConsumerGroups(rows []ConsumerGroupRow) []byte {
	var e enc
	e.consumerGroupRows(rows)
	return e.b
}

func (e *enc) consumerGroupRows(rows []ConsumerGroupRow) {
	e.uvar(uint64(len(rows)))
	for i := range rows {
		g := &rows[i].Group
		e.scope(rows[i].Scope)
		e.str(g.Name)
		e.uvar(g.CommittedOffset)
		e.uvar(g.DeliverNextOffset)
		e.uvar(uint64(len(g.Leases)))
		for _, l := range g.Leases {
			e.uvar(l.Offset)
			e.uvar(uint64(l.ExpiryNs))
		}
	}
}

// leaseBytesMin is the smallest encoded lease: two one-byte varints.
const leaseBytesMin = 2

func decodeConsumerGroups(p []byte, reuse []ConsumerGroupRow, names *scopeNames) ([]ConsumerGroupRow, error) {
	d := dec{b: p, names: names}
	rows := clearedRows(reuse, d.count("consumer group rows", scopeBytesMin+4))
	for i := range rows {
		rows[i].Scope = d.scope()
		g := &rows[i].Group
		g.Name = d.str("consumer group name", statemachine.GroupNameLenMax)
		g.CommittedOffset = d.uvar()
		g.DeliverNextOffset = d.uvar()
		if n := d.count("leases", leaseBytesMin); n > 0 {
			g.Leases = make([]statemachine.Lease, n)
			for j := range g.Leases {
				g.Leases[j] = statemachine.Lease{Offset: d.uvar(), ExpiryNs: int64(d.uvar())}
			}
		}
	}
	return rows, d.done()
}
