package statemachine

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// FuzzCommands decodes arbitrary bytes into a sequence of shard commands
// with arbitrary field values (any event or op kind, empty keys, any
// offsets, negative or huge times) and checks that the shard never panics,
// and that every refusal changes nothing: a refused conditional write and
// every error leave the snapshot digest unchanged, a write lands exactly at
// the old tail, and every retained state version points at a record that
// put that value. The rapid test checks exact semantics against a model;
// this one hunts extreme inputs.
func FuzzCommands(f *testing.F) {
	f.Add([]byte{0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0, 2, 2, 1, 'a', 1, 'v', 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 'g', 2, 5})
	f.Add([]byte{4, 9, 5, 0, 6, 2, 'x', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 3, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := testConfig(StreamKind(1 + data0(data)%2))
		cfg.RetainedLenMax, cfg.ReplayWindowLenMax = 5, 3
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		c := cursor{b: data}
		for steps := 0; len(c.b) > 0 && steps < 200; steps++ {
			before := s.Snapshot()
			changed, err := fuzzStep(s, &c)
			after := s.Snapshot()
			if (err != nil || !changed) && before.Digest() != after.Digest() {
				t.Fatalf("step %d refused (err %v) yet changed the shard:\n%+v\n%+v", steps, err, before, after)
			}
			checkVersions(t, s, &after)
		}
	})
}

func data0(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// cursor reads fuzz bytes; once they run out every read is zero.
type cursor struct{ b []byte }

func (c *cursor) byte() byte {
	if len(c.b) == 0 {
		return 0
	}
	v := c.b[0]
	c.b = c.b[1:]
	return v
}

func (c *cursor) u64() uint64 {
	var buf [8]byte
	n := copy(buf[:], c.b)
	c.b = c.b[n:]
	return binary.LittleEndian.Uint64(buf[:])
}

func (c *cursor) str() string {
	n := int(c.byte() % 4)
	out := make([]byte, n)
	for i := range out {
		out[i] = 'a' + c.byte()%3
	}
	return string(out)
}

func (c *cursor) record(tail uint64) felix.Record {
	r := felix.Record{Event: felix.EventKind(c.byte() % 4), Payload: []byte(c.str())}
	for n := int(c.byte() % 4); n > 0; n-- {
		r.Ops = append(r.Ops, felix.StateOp{Kind: felix.OpKind(c.byte() % 4), Key: c.str(), Value: []byte(c.str())})
	}
	if r.Conditional = c.byte()%2 == 1; r.Conditional {
		r.ExpectedOffset = tail + uint64(int8(c.byte()))
	}
	return r
}

// fuzzStep applies one decoded command; changed reports whether it may
// have changed the shard.
func fuzzStep(s *Shard, c *cursor) (changed bool, err error) {
	switch c.byte() % 6 {
	case 0:
		tail := s.NextOffset()
		r := c.record(tail)
		res, err := s.Apply(&r, Features{AtomicCommitFinalized: c.byte()%2 == 1})
		if err == nil && res.Outcome == OutcomeWritten && res.Offset != tail {
			panic("written away from the tail")
		}
		if err == nil && res.Outcome == OutcomeRefused && res.Tail != tail {
			panic("refused with a tail that is not the tail")
		}
		return err == nil && res.Outcome == OutcomeWritten, err
	case 1:
		_, err := s.ReadFrom(c.u64(), int(int8(c.byte())))
		return false, err
	case 2:
		_, err := s.Fetch(GroupFetch{Group: c.str(), NowNs: int64(c.u64()), LeaseNs: int64(c.u64()), EntriesMax: int(int8(c.byte()))})
		return true, err
	case 3:
		return true, s.Ack(GroupAck{Group: c.str(), Offset: uint64(c.byte())})
	case 4:
		return true, s.DropBefore(s.FirstOffset() + uint64(c.byte()%4))
	default:
		sn := s.Snapshot()
		r, err := Rebuild(sn.RebuildInput(s.Config()))
		if err != nil {
			return false, errors.Join(errors.New("rebuild of a shard's own snapshot refused"), err)
		}
		*s = *r
		return true, nil
	}
}

func checkVersions(t *testing.T, s *Shard, sn *Snapshot) {
	for _, kv := range sn.State {
		if kv.Version >= sn.NextOffset {
			t.Fatalf("key %q at version %d, tail %d", kv.Key, kv.Version, sn.NextOffset)
		}
		if kv.Version < sn.FirstOffset {
			continue
		}
		ok := false
		for _, op := range sn.Entries[kv.Version-sn.FirstOffset].Record.Ops {
			if op.Key == kv.Key {
				ok = op.Kind == felix.OpPut && string(op.Value) == string(kv.Value)
			}
		}
		if !ok {
			t.Fatalf("VersionIsOffset: key %q = %q at %d not put by that record", kv.Key, kv.Value, kv.Version)
		}
	}
}
