package statemachine

import (
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/stretchr/testify/require"
)

func applyAll(t *testing.T, s *Shard, recs ...*felix.Record) {
	t.Helper()
	for _, r := range recs {
		_, err := s.Apply(r, finalized)
		require.NoError(t, err)
	}
}

func rebuildFrom(t *testing.T, s *Shard) *Shard {
	t.Helper()
	sn := s.Snapshot()
	r, err := Rebuild(sn.RebuildInput(s.Config()))
	require.NoError(t, err)
	return r
}

// TestRetentionForgetsKeysWhoseLastWriteIsDropped pins down the retention
// rule: the state view is the fold of the retained log, live and rebuilt
// alike. A key whose last write is dropped reads absent (never an older
// value); a key rewritten later keeps its later value.
func TestRetentionForgetsKeysWhoseLastWriteIsDropped(t *testing.T) {
	s := newTestShard(t, StreamQuorum)
	applyAll(t, s,
		commitRec("0", put("a", "a0"), put("b", "b0"), put("d", "d0")), // 0
		commitRec("1", put("a", "a1")),                                 // 1: a's last write
		commitRec("2", del("b")),                                       // 2: b's last write
		commitRec("3", put("c", "c3"), put("d", "d3")),                 // 3: c's and d's last write
	)
	require.Zero(t, s.KeysDropped())
	require.NoError(t, s.DropBefore(2))
	// Dropping 0 and 1: d (rewritten at 3) stays; a (last put at 1) goes;
	// b was put at 0 but deleted at 2, so it was absent already.
	require.Equal(t, uint64(1), s.KeysDropped(), "only a was live and last written in the dropped prefix")
	_, _, ok := s.StateGet("a")
	require.False(t, ok, "a's last write was dropped: a is gone from the live view")
	r := rebuildFrom(t, s)
	for _, sh := range []*Shard{s, r} {
		require.Equal(t, []KeyValue{{Key: "c", Value: []byte("c3"), Version: 3}, {Key: "d", Value: []byte("d3"), Version: 3}}, sh.State())
		require.Equal(t, uint64(2), sh.FirstOffset())
		require.Equal(t, uint64(4), sh.NextOffset())
	}
	require.NoError(t, s.DropBefore(4))
	require.Zero(t, s.StateLen(), "nothing retained, nothing live")
	require.Equal(t, uint64(3), s.KeysDropped())
	require.Zero(t, rebuildFrom(t, s).StateLen(), "nothing retained, nothing rebuilt")
}

func TestRetentionByCountForgetsKeys(t *testing.T) {
	c := testConfig(StreamQuorum)
	c.RetainedLenMax = 2
	s, err := New(c)
	require.NoError(t, err)
	applyAll(t, s, commitRec("0", put("x", "1")), commitRec("1", put("y", "1")), commitRec("2", put("y", "2")))
	_, _, ok := s.StateGet("x")
	require.False(t, ok, "x's only write left the window of 2")
	require.Equal(t, uint64(1), s.KeysDropped())
	applyAll(t, s, commitRec("3", put("z", "1")))
	v, ver, ok := s.StateGet("y")
	require.True(t, ok, "y was rewritten at 2, which is retained")
	require.Equal(t, "2", string(v))
	require.Equal(t, uint64(2), ver)
}

func TestRetentionByCountDropsOldest(t *testing.T) {
	c := testConfig(StreamQuorum)
	c.RetainedLenMax = 3
	s, err := New(c)
	require.NoError(t, err)
	for i := 0; i < 5; i++ {
		applyAll(t, s, &felix.Record{Event: felix.EventPublish})
	}
	require.Equal(t, uint64(2), s.FirstOffset())
	require.Len(t, s.Retained(), 3)
	_, err = s.ReadFrom(1, 1)
	require.ErrorIs(t, err, ErrBeforeWindow)
	require.ErrorIs(t, s.DropBefore(6), ErrBeyondTail)
	require.NoError(t, s.DropBefore(1), "dropping below the first retained offset is a no-op")
	require.Equal(t, uint64(2), s.FirstOffset())
}

func TestRebuildRefusesBadInput(t *testing.T) {
	cfg := testConfig(StreamQuorum)
	pub := felix.Record{Event: felix.EventPublish}
	good := []felix.Entry{{Offset: 5, Record: pub}, {Offset: 6, Record: pub}}
	for _, tc := range []struct {
		name string
		in   RebuildInput
		want string
	}{
		{"bad config", RebuildInput{Config: Config{}}, "invalid shard config"},
		{"gap", RebuildInput{Config: cfg, StartOffset: 5, Entries: []felix.Entry{{Offset: 5, Record: pub}, {Offset: 7, Record: pub}}}, "entry 1 has offset 7, want 6"},
		{"wrong start", RebuildInput{Config: cfg, StartOffset: 4, Entries: good}, "entry 0 has offset 5, want 4"},
		{"invalid record", RebuildInput{Config: cfg, StartOffset: 0, Entries: []felix.Entry{{Offset: 0}}}, "entry at offset 0: invalid record"},
		{"commit on ephemeral", RebuildInput{Config: testConfig(StreamEphemeral), Entries: []felix.Entry{{Record: *commitRec("x", put("k", "v"))}}}, "ephemeral stream refuses commits"},
		{"group beyond tail", RebuildInput{Config: cfg, StartOffset: 5, Entries: good, Groups: []GroupState{{Name: "g", CommittedOffset: 8, DeliverNextOffset: 8}}}, "deliver-next offset 8 beyond tail 7"},
		{"group committed wrong", RebuildInput{Config: cfg, StartOffset: 5, Entries: good, Groups: []GroupState{{Name: "g", CommittedOffset: 5, DeliverNextOffset: 7, Leases: []Lease{{Offset: 6}}}}}, "committed offset 5, want 6"},
		{"leases unordered", RebuildInput{Config: cfg, StartOffset: 5, Entries: good, Groups: []GroupState{{Name: "g", CommittedOffset: 6, DeliverNextOffset: 7, Leases: []Lease{{Offset: 6}, {Offset: 5}}}}}, "lease 1 at offset 5 out of order"},
		{"duplicate group", RebuildInput{Config: cfg, StartOffset: 5, Entries: good, Groups: []GroupState{{Name: "g", CommittedOffset: 7, DeliverNextOffset: 7}, {Name: "g", CommittedOffset: 7, DeliverNextOffset: 7}}}, `group "g" appears twice`},
		{"empty group name", RebuildInput{Config: cfg, StartOffset: 5, Entries: good, Groups: []GroupState{{CommittedOffset: 7, DeliverNextOffset: 7}}}, "empty group name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Rebuild(tc.in)
			require.ErrorContains(t, err, tc.want)
		})
	}
	s, err := Rebuild(RebuildInput{Config: cfg, StartOffset: 5, Entries: good, Groups: []GroupState{{Name: "g", CommittedOffset: 6, DeliverNextOffset: 7, Leases: []Lease{{Offset: 6, ExpiryNs: 9}}}}})
	require.NoError(t, err)
	require.Equal(t, uint64(7), s.NextOffset())
	d, err := s.Fetch(GroupFetch{Group: "g", NowNs: 9, LeaseNs: 1, EntriesMax: 4})
	require.NoError(t, err)
	require.Len(t, d, 1)
	require.True(t, d[0].Redelivered, "a restored expired lease is redelivered")
}

func TestGroupCommandsRefusedForShape(t *testing.T) {
	s := newTestShard(t, StreamQuorum)
	for _, tc := range []struct {
		cmd  GroupFetch
		want string
	}{
		{GroupFetch{LeaseNs: 1, EntriesMax: 1}, "empty group name"},
		{GroupFetch{Group: string(make([]byte, GroupNameLenMax+1)), LeaseNs: 1, EntriesMax: 1}, "exceeds"},
		{GroupFetch{Group: "g", LeaseNs: 0, EntriesMax: 1}, "lease of 0 ns"},
		{GroupFetch{Group: "g", NowNs: 1<<63 - 1, LeaseNs: 1, EntriesMax: 1}, "overflows"},
		{GroupFetch{Group: "g", LeaseNs: 1, EntriesMax: 0}, "fetch of 0 entries"},
	} {
		_, err := s.Fetch(tc.cmd)
		require.ErrorIs(t, err, ErrInvalidCommand)
		require.ErrorContains(t, err, tc.want)
	}
	require.Empty(t, s.Groups(), "refused fetches create no group")
	require.ErrorIs(t, s.Ack(GroupAck{Offset: 0}), ErrInvalidCommand)
	_, err := s.ReadFrom(0, 0)
	require.ErrorIs(t, err, ErrInvalidCommand)
	for _, g := range []string{"g1", "g2", "g3", "g4"} {
		_, err := s.Fetch(GroupFetch{Group: g, LeaseNs: 1, EntriesMax: 1})
		require.NoError(t, err)
	}
	_, err = s.Fetch(GroupFetch{Group: "g5", LeaseNs: 1, EntriesMax: 1})
	require.ErrorIs(t, err, ErrTooManyGroups)
	require.ErrorContains(t, err, `group "g5" would be number 5, the shard allows 4`)
}

func TestDigestSeesEveryField(t *testing.T) {
	s := newTestShard(t, StreamQuorum)
	applyAll(t, s, commitRec("e", put("k", "v")), &felix.Record{Event: felix.EventPublish, Payload: []byte("p")})
	_, err := s.Fetch(GroupFetch{Group: "g", NowNs: 1, LeaseNs: 1, EntriesMax: 1})
	require.NoError(t, err)
	base := s.Snapshot()
	seen := map[uint64]string{base.Digest(): "base"}
	mutations := map[string]func(sn *Snapshot){
		"first":     func(sn *Snapshot) { sn.FirstOffset++ },
		"next":      func(sn *Snapshot) { sn.NextOffset++ },
		"value":     func(sn *Snapshot) { sn.State[0].Value = []byte("w") },
		"version":   func(sn *Snapshot) { sn.State[0].Version++ },
		"payload":   func(sn *Snapshot) { sn.Entries[1].Record.Payload = []byte("q") },
		"event":     func(sn *Snapshot) { sn.Entries[1].Record.Event = felix.EventEnqueue },
		"op key":    func(sn *Snapshot) { sn.Entries[0].Record.Ops = []felix.StateOp{put("j", "v")} },
		"lease":     func(sn *Snapshot) { sn.Groups[0].Leases[0].ExpiryNs++ },
		"committed": func(sn *Snapshot) { sn.Groups[0].CommittedOffset++ },
		"key/value boundary": func(sn *Snapshot) {
			sn.State[0].Key, sn.State[0].Value = "kv", nil
		},
	}
	for _, name := range []string{"first", "next", "value", "version", "payload", "event", "op key", "lease", "committed", "key/value boundary"} {
		sn := s.Snapshot()
		mutations[name](&sn)
		d := sn.Digest()
		prev, dup := seen[d]
		require.False(t, dup, "mutation %q has the same digest as %q", name, prev)
		seen[d] = name
	}
	again := s.Snapshot()
	require.Equal(t, base.Digest(), again.Digest(), "digest is a function of the snapshot")
}

// TestRestartGroupsAfterEmptying: a group stranded below the window by a
// drop to the tail (a stream deleted) is refused ErrDropped until it is
// restarted; restarted, it holds no leases of the old records and its
// next fetch hands out exactly the records written after the drop.
func TestRestartGroupsAfterEmptying(t *testing.T) {
	s := newTestShard(t, StreamQuorum)
	applyAll(t, s, commitRec("0"), commitRec("1"), commitRec("2"))
	d, err := s.Fetch(GroupFetch{Group: "g", NowNs: 1, LeaseNs: 10, EntriesMax: 2})
	require.NoError(t, err)
	require.Len(t, d, 2)
	require.NoError(t, s.Ack(GroupAck{Group: "g", Offset: 0}))
	require.NoError(t, s.DropBefore(s.NextOffset()))
	applyAll(t, s, commitRec("3"))
	_, err = s.Fetch(GroupFetch{Group: "g", NowNs: 100, LeaseNs: 10, EntriesMax: 4})
	require.ErrorIs(t, err, ErrDropped, "the lease of offset 1 expired and offset 1 is gone")

	s2 := newTestShard(t, StreamQuorum)
	applyAll(t, s2, commitRec("0"), commitRec("1"), commitRec("2"))
	_, err = s2.Fetch(GroupFetch{Group: "g", NowNs: 1, LeaseNs: 10, EntriesMax: 2})
	require.NoError(t, err)
	require.NoError(t, s2.DropBefore(s2.NextOffset()))
	got := s2.RestartGroups()
	require.Equal(t, []GroupState{{Name: "g", CommittedOffset: 3, DeliverNextOffset: 3}}, got)
	applyAll(t, s2, commitRec("3"), commitRec("4"))
	d, err = s2.Fetch(GroupFetch{Group: "g", NowNs: 100, LeaseNs: 10, EntriesMax: 4})
	require.NoError(t, err)
	var offsets []uint64
	for _, x := range d {
		offsets = append(offsets, x.Entry.Offset)
		require.False(t, x.Redelivered, "offset %d: nothing of the old generation is redelivered", x.Entry.Offset)
	}
	require.Equal(t, []uint64{3, 4}, offsets)
	require.Panics(t, func() {
		applyAll(t, s2, commitRec("5"))
		s2.RestartGroups() // offsets 3..5 are retained: a restart would move the group back
	})
}

// TestRetentionByCountWaitsForGroups: a full log whose oldest record a
// consumer group has not committed refuses the next write (ErrWindowHeld,
// nothing written) instead of dropping the record; once the group acks
// past it, the write drops it as before.
func TestRetentionByCountWaitsForGroups(t *testing.T) {
	c := testConfig(StreamQuorum)
	c.RetainedLenMax = 2
	s, err := New(c)
	require.NoError(t, err)
	applyAll(t, s, &felix.Record{Event: felix.EventEnqueue, Payload: []byte("0")})
	d, err := s.Fetch(GroupFetch{Group: "ful", NowNs: 1, LeaseNs: 10, EntriesMax: 1})
	require.NoError(t, err)
	require.Len(t, d, 1)
	applyAll(t, s, &felix.Record{Event: felix.EventEnqueue, Payload: []byte("1")})
	_, err = s.Apply(&felix.Record{Event: felix.EventEnqueue, Payload: []byte("2")}, finalized)
	require.ErrorIs(t, err, ErrWindowHeld, "offset 0 is leased, not acked")
	require.Equal(t, uint64(0), s.FirstOffset(), "a refused write dropped nothing")
	require.Equal(t, uint64(2), s.NextOffset(), "a refused write wrote nothing")
	require.NoError(t, s.Ack(GroupAck{Group: "ful", Offset: 0}))
	applyAll(t, s, &felix.Record{Event: felix.EventEnqueue, Payload: []byte("2")})
	require.Equal(t, uint64(1), s.FirstOffset(), "offset 0 was committed by every group, so it was dropped")
	_, err = s.Apply(&felix.Record{Event: felix.EventEnqueue, Payload: []byte("3")}, finalized)
	require.ErrorIs(t, err, ErrWindowHeld, "offset 1 was never handed out: the group still owes it")
	require.Equal(t, uint64(1), s.GroupsCommittedMin())
}
