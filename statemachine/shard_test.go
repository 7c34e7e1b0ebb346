package statemachine

import (
	"errors"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/stretchr/testify/require"
)

var finalized = Features{AtomicCommitFinalized: true}

func testConfig(kind StreamKind) Config {
	return Config{
		Scope:              felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "order-events", Shard: 1},
		Kind:               kind,
		RetainedLenMax:     64,
		ReplayWindowLenMax: 8,
		GroupsMax:          4,
		LeasesPerGroupMax:  4,
	}
}

func newTestShard(t *testing.T, kind StreamKind) *Shard {
	t.Helper()
	s, err := New(testConfig(kind))
	require.NoError(t, err)
	return s
}

func commitRec(payload string, ops ...felix.StateOp) *felix.Record {
	return &felix.Record{Event: felix.EventEnqueue, Payload: []byte(payload), Ops: ops}
}

func put(k, v string) felix.StateOp {
	return felix.StateOp{Kind: felix.OpPut, Key: k, Value: []byte(v)}
}
func del(k string) felix.StateOp { return felix.StateOp{Kind: felix.OpDelete, Key: k} }

func TestCommitWritesEventAndStateAtOneOffset(t *testing.T) {
	s := newTestShard(t, StreamQuorum)
	res, err := s.Apply(&felix.Record{Event: felix.EventPublish, Payload: []byte("p0")}, Features{})
	require.NoError(t, err)
	require.Equal(t, Written(0), res)
	res, err = s.Apply(commitRec("placed", put("order-42", "placed"), put("cart-42", "x"), del("cart-42")), finalized)
	require.NoError(t, err)
	require.Equal(t, Written(1), res)
	v, ver, ok := s.StateGet("order-42")
	require.True(t, ok)
	require.Equal(t, "placed", string(v))
	require.Equal(t, uint64(1), ver)
	_, _, ok = s.StateGet("cart-42")
	require.False(t, ok, "delete after put in one record removes the key")
	require.Equal(t, uint64(2), s.NextOffset())
	require.Equal(t, "Written{1}", res.String())
}

func TestConfigRefusesZeroValues(t *testing.T) {
	_, err := New(Config{})
	require.ErrorIs(t, err, ErrInvalidConfig)
	c := testConfig(StreamInvalid)
	_, err = New(c)
	require.ErrorIs(t, err, ErrInvalidConfig)
	require.Contains(t, err.Error(), "stream kind")
	c = testConfig(StreamQuorum)
	c.GroupsMax = 0
	_, err = New(c)
	require.ErrorContains(t, err, "GroupsMax is 0")
}

func TestRefusalsChangeNothing(t *testing.T) {
	eph := newTestShard(t, StreamEphemeral)
	_, err := eph.Apply(commitRec("e", put("k", "v")), finalized)
	require.ErrorIs(t, err, ErrEphemeralRefusesCommit)
	require.Equal(t, uint64(0), eph.NextOffset())
	res, err := eph.Apply(&felix.Record{Event: felix.EventPublish}, finalized)
	require.NoError(t, err, "an ephemeral stream still takes plain publishes")
	require.Equal(t, Written(0), res)

	q := newTestShard(t, StreamQuorum)
	_, err = q.Apply(commitRec("e", put("k", "v")), Features{})
	require.ErrorIs(t, err, ErrFeatureNotFinalized)
	_, err = q.Apply(&felix.Record{Event: felix.EventInvalid}, finalized)
	require.ErrorIs(t, err, felix.ErrInvalidRecord)
	res, err = q.Apply(&felix.Record{Event: felix.EventPublish, Conditional: true, ExpectedOffset: 3, Ops: []felix.StateOp{put("k", "v")}}, finalized)
	require.NoError(t, err)
	require.Equal(t, Refused(0), res)
	require.Equal(t, uint64(0), q.NextOffset())
	require.Zero(t, q.StateLen())
}

func TestReadFromWindow(t *testing.T) {
	s := newTestShard(t, StreamQuorum)
	for i := 0; i < 20; i++ {
		_, err := s.Apply(&felix.Record{Event: felix.EventPublish}, Features{})
		require.NoError(t, err)
	}
	require.Equal(t, uint64(12), s.WindowStart())
	_, err := s.ReadFrom(11, 10)
	var oe *OffsetError
	require.True(t, errors.As(err, &oe))
	require.ErrorIs(t, err, ErrBeforeWindow)
	require.Equal(t, uint64(12), oe.StartOffset)
	got, err := s.ReadFrom(12, 3)
	require.NoError(t, err)
	require.Len(t, got, 3)
	require.Equal(t, uint64(14), got[2].Offset)
	got, err = s.ReadFrom(20, 3)
	require.NoError(t, err)
	require.Empty(t, got, "reading at the tail is empty, not an error")
	_, err = s.ReadFrom(21, 3)
	require.ErrorIs(t, err, ErrBeyondTail)
}

func TestGroupLeaseRedeliveryAndAck(t *testing.T) {
	s := newTestShard(t, StreamQuorum)
	for i := 0; i < 6; i++ {
		_, err := s.Apply(&felix.Record{Event: felix.EventEnqueue}, Features{})
		require.NoError(t, err)
	}
	d, err := s.Fetch(GroupFetch{Group: "ful", NowNs: 0, LeaseNs: 10, EntriesMax: 3})
	require.NoError(t, err)
	require.Len(t, d, 3)
	require.NoError(t, s.Ack(GroupAck{Group: "ful", Offset: 1}))
	require.Equal(t, uint64(0), s.Groups()[0].CommittedOffset)
	// At 10 the leases of 0 and 2 expire: they come back first, then 3, 4
	// (the in-flight cap of 4 stops 5).
	d, err = s.Fetch(GroupFetch{Group: "ful", NowNs: 10, LeaseNs: 10, EntriesMax: 5})
	require.NoError(t, err)
	offs := []uint64{}
	for _, x := range d {
		offs = append(offs, x.Entry.Offset)
	}
	require.Equal(t, []uint64{0, 2, 3, 4}, offs)
	require.True(t, d[0].Redelivered)
	require.False(t, d[2].Redelivered)
	require.NoError(t, s.Ack(GroupAck{Group: "ful", Offset: 0}))
	require.NoError(t, s.Ack(GroupAck{Group: "ful", Offset: 0}), "acks may be retried")
	require.Equal(t, uint64(2), s.Groups()[0].CommittedOffset)
	require.ErrorIs(t, s.Ack(GroupAck{Group: "ful", Offset: 5}), ErrNotDelivered)
	require.ErrorIs(t, s.Ack(GroupAck{Group: "nope", Offset: 0}), ErrUnknownGroup)
	require.Equal(t, uint64(2), s.GroupsCommittedMin())
	require.NoError(t, s.DropBefore(3))
	_, err = s.Fetch(GroupFetch{Group: "ful", NowNs: 100, LeaseNs: 10, EntriesMax: 5})
	require.ErrorIs(t, err, ErrDropped, "the expired lease of offset 2 was dropped")
	require.Equal(t, uint64(2), s.Groups()[0].CommittedOffset, "refused fetch changed nothing")
}
