package statemachine

import (
	"bytes"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/felixsim/felixsim/felix"
)

// TestChangesSinceNamesEveryChange: over random commands (writes, retention
// steps, fetches, acks, the planted ack defects, a stream's delete with
// its group restart), read
// back at random moments, every state key and consumer group that differs
// from the last reading (State and Groups, apart from the change list) is
// named by ChangesSince, unless it reports that it no longer keeps them
// all; and a retained record that both readings hold is the same record
// (records never change in place).
func TestChangesSinceNamesEveryChange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t)
		cfg.Kind = StreamQuorum
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		h := &harness{s: s, m: newModel(cfg)}
		mark, state, groups, log := s.ChangeCount(), stateText(s), groupText(s), s.Retained()
		for step := range rapid.IntRange(1, 60).Draw(t, "steps") {
			switch rapid.IntRange(0, 6).Draw(t, "cmd") {
			case 0, 1, 2:
				r := h.drawRecord(t)
				s.Apply(&r, Features{AtomicCommitFinalized: true})
			case 3:
				s.DropBefore(rapid.Uint64Range(s.FirstOffset(), min(s.NextOffset(), s.GroupsCommittedMin())).Draw(t, "drop"))
			case 4:
				s.Fetch(GroupFetch{Group: rapid.SampledFrom(testGroups).Draw(t, "group"), NowNs: int64(step), LeaseNs: 2, EntriesMax: 2})
			case 5:
				ack := GroupAck{Group: rapid.SampledFrom(testGroups).Draw(t, "group"), Offset: rapid.Uint64Range(0, s.NextOffset()).Draw(t, "ack")}
				[]func(GroupAck) error{s.Ack, s.AckOldestOnly, s.AckDropsOlderLeases}[rapid.IntRange(0, 2).Draw(t, "ackKind")](ack)
			case 6: // a stream's delete: everything dropped, the groups restarted
				s.DropBefore(s.NextOffset())
				s.RestartGroups()
			}
			if !rapid.Bool().Draw(t, "read") {
				continue
			}
			named := map[string]bool{}
			complete := s.ChangesSince(mark, func(group bool, key string) { named[fmt.Sprint(group, key)] = true })
			nowState, nowGroups := stateText(s), groupText(s)
			if complete {
				assertNamed(t, step, false, state, nowState, named)
				assertNamed(t, step, true, groups, nowGroups, named)
			}
			for _, e := range log {
				if r, ok := s.LogAt(e.Offset); ok && !sameRecordBytes(r, &e.Record) {
					t.Fatalf("step %d: the record at offset %d changed in place", step, e.Offset)
				}
			}
			mark, state, groups, log = s.ChangeCount(), nowState, nowGroups, s.Retained()
		}
	})
}

// stateText is a shard's state, one line per key.
func stateText(s *Shard) map[string]string {
	out := map[string]string{}
	for _, kv := range s.State() {
		out[kv.Key] = fmt.Sprintf("%q@%d", kv.Value, kv.Version)
	}
	return out
}

// groupText is a shard's consumer groups, one line per group.
func groupText(s *Shard) map[string]string {
	out := map[string]string{}
	for _, g := range s.Groups() {
		out[g.Name] = fmt.Sprintf("%+v", g)
	}
	return out
}

// assertNamed fails unless every key whose line differs between was and
// now is named.
func assertNamed(t *rapid.T, step int, group bool, was, now map[string]string, named map[string]bool) {
	for _, m := range []map[string]string{was, now} {
		for k := range m {
			if was[k] != now[k] && !named[fmt.Sprint(group, k)] {
				t.Fatalf("step %d: %q (group %v) went from %q to %q, and ChangesSince does not name it", step, k, group, was[k], now[k])
			}
		}
	}
}

// sameRecordBytes compares two records field by field.
func sameRecordBytes(a, b *felix.Record) bool {
	return fmt.Sprintf("%+v", *a) == fmt.Sprintf("%+v", *b) && bytes.Equal(a.Payload, b.Payload)
}

// TestChangesSinceForgetsTheOldest: past ChangesKeptMax changes, a mark
// from before them is refused; one within them still reads.
func TestChangesSinceForgetsTheOldest(t *testing.T) {
	s, err := New(Config{Scope: felix.Scope{Tenant: "t", Namespace: "n", Stream: "s"}, Kind: StreamQuorum, RetainedLenMax: 1 << 20,
		ReplayWindowLenMax: 8, GroupsMax: 1, LeasesPerGroupMax: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < ChangesKeptMax+1; i++ {
		r := felix.Record{Event: felix.EventPublish, Ops: []felix.StateOp{{Kind: felix.OpPut, Key: fmt.Sprint(i), Value: []byte("v")}}}
		if _, err := s.Apply(&r, Features{AtomicCommitFinalized: true}); err != nil {
			t.Fatal(err)
		}
	}
	if s.ChangesSince(0, func(bool, string) {}) {
		t.Fatal("a mark older than the changes kept was read")
	}
	var keys []string
	if !s.ChangesSince(s.ChangeCount()-2, func(_ bool, k string) { keys = append(keys, k) }) || fmt.Sprint(keys) != fmt.Sprintf("[%d %d]", ChangesKeptMax-1, ChangesKeptMax) {
		t.Fatalf("the last two changes: %v", keys)
	}
	if s.ChangesSince(s.ChangeCount()+1, func(bool, string) {}) {
		t.Fatal("a mark past the count was read")
	}
}
