package statemachine

import (
	"encoding/binary"
	"hash"
	"hash/fnv"

	"github.com/felixsim/felixsim/felix"
)

// Snapshot is everything a replica's shard holds, in a deterministic order:
// what properties compare across replicas and what Rebuild restores from.
type Snapshot struct {
	FirstOffset uint64
	NextOffset  uint64
	// State is the state view in ascending key order.
	State []KeyValue
	// Entries is the retained log, oldest first.
	Entries []felix.Entry
	// Groups are the consumer groups in ascending name order.
	Groups []GroupState
}

// Snapshot lists the shard's offsets, state, retained log and groups. The
// values and records share their buffers with the shard: do not modify them.
func (s *Shard) Snapshot() Snapshot {
	return Snapshot{
		FirstOffset: s.log.firstOffset,
		NextOffset:  s.log.nextOffset,
		State:       s.State(),
		Entries:     s.Retained(),
		Groups:      s.Groups(),
	}
}

// RebuildInput returns the input that rebuilds a shard from this snapshot's
// retained log and groups, under cfg.
func (sn *Snapshot) RebuildInput(cfg Config) RebuildInput {
	return RebuildInput{Config: cfg, StartOffset: sn.FirstOffset, Entries: sn.Entries, Groups: sn.Groups}
}

// Digest is a 64-bit FNV-1a hash of the whole snapshot, every field
// length-prefixed, so replicas can be compared cheaply; equal snapshots
// have equal digests on every platform.
func (sn *Snapshot) Digest() uint64 {
	d := digester{h: fnv.New64a()}
	d.u64(sn.FirstOffset)
	d.u64(sn.NextOffset)
	d.u64(uint64(len(sn.State)))
	for _, kv := range sn.State {
		d.bytes([]byte(kv.Key))
		d.bytes(kv.Value)
		d.u64(kv.Version)
	}
	d.u64(uint64(len(sn.Entries)))
	for i := range sn.Entries {
		d.entry(&sn.Entries[i])
	}
	d.u64(uint64(len(sn.Groups)))
	for _, g := range sn.Groups {
		d.bytes([]byte(g.Name))
		d.u64(g.CommittedOffset)
		d.u64(g.DeliverNextOffset)
		d.u64(uint64(len(g.Leases)))
		for _, l := range g.Leases {
			d.u64(l.Offset)
			d.u64(uint64(l.ExpiryNs))
		}
	}
	return d.h.Sum64()
}

type digester struct {
	h   hash.Hash64
	buf [8]byte
}

func (d *digester) u64(v uint64) {
	binary.LittleEndian.PutUint64(d.buf[:], v)
	d.h.Write(d.buf[:])
}

func (d *digester) bytes(b []byte) {
	d.u64(uint64(len(b)))
	d.h.Write(b)
}

func (d *digester) entry(e *felix.Entry) {
	d.u64(e.Offset)
	d.u64(uint64(e.Record.Event))
	d.bytes(e.Record.Payload)
	cond := uint64(0)
	if e.Record.Conditional {
		cond = 1
	}
	d.u64(cond)
	d.u64(e.Record.ExpectedOffset)
	d.u64(uint64(len(e.Record.Ops)))
	for _, op := range e.Record.Ops {
		d.u64(uint64(op.Kind))
		d.bytes([]byte(op.Key))
		d.bytes(op.Value)
	}
}
