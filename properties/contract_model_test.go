package properties

import (
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// The contract model's vectors, each taken from a sentence of the seeds or
// docs/atomic-commit.md (quoted beside it), not from the broker.

func commitRec(payload, key, value string) *felix.Record {
	return &felix.Record{Event: felix.EventEnqueue, Payload: []byte(payload),
		Ops: []felix.StateOp{{Kind: felix.OpPut, Key: key, Value: []byte(value)}}}
}

func publishRec(payload string) *felix.Record {
	return &felix.Record{Event: felix.EventPublish, Payload: []byte(payload)}
}

func conditional(r *felix.Record, expected uint64) *felix.Record {
	r.Conditional, r.ExpectedOffset = true, expected
	return r
}

func wantAnswer(t *testing.T, what string, got ContractAnswer, want HistoryAnswer) ContractAnswer {
	t.Helper()
	if got.Answer != want {
		t.Fatalf("%s: answer %s, want %s (%+v)", what, got.Answer, want, got)
	}
	return got
}

func offsetsOf(es []ViewEntry) []uint64 {
	out := []uint64{}
	for _, e := range es {
		out = append(out, e.Offset)
	}
	return out
}

func wantOffsets(t *testing.T, what string, es []ViewEntry, want ...uint64) {
	t.Helper()
	got := offsetsOf(es)
	if len(got) != len(want) {
		t.Fatalf("%s: offsets %v, want %v", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: offsets %v, want %v", what, got, want)
		}
	}
}

// "state_get returns the value and a version equal to the offset of the
// commit that wrote it"; "A delete removes the key; it then reads as absent".
func TestContractModelCommitAndStateGet(t *testing.T) {
	s := NewContractScope(ContractConfig{Finalized: true})
	w := wantAnswer(t, "commit", s.Write(ContractCommit, commitRec("placed", "order-42", "placed")), AnswerWritten)
	if w.Offset != 0 {
		t.Fatalf("first commit at offset %d, want 0", w.Offset)
	}
	wantAnswer(t, "publish", s.Write(ContractPublish, publishRec("p")), AnswerWritten)
	g := s.StateGet("order-42")
	if !g.Found || g.Value != "placed" || g.Version != w.Offset {
		t.Fatalf("state_get %+v, want placed at version %d", g, w.Offset)
	}
	del := &felix.Record{Event: felix.EventPublish, Payload: []byte("gone"), Ops: []felix.StateOp{{Kind: felix.OpDelete, Key: "order-42"}}}
	wantAnswer(t, "delete commit", s.Write(ContractCommit, del), AnswerWritten)
	if g := s.StateGet("order-42"); g.Found {
		t.Fatalf("state_get after a delete found %+v", g)
	}
}

// "It is written only if nothing was appended to the shard since the writer
// saw that offset, and refused otherwise with the shard's tail and nothing
// written"; "any write to the shard, including a plain publish, refuses it".
func TestContractModelConditionalWrites(t *testing.T) {
	s := NewContractScope(ContractConfig{Finalized: true})
	if w := s.Write(ContractCommitIf, conditional(commitRec("a", "k", "1"), 0)); w.Answer != AnswerWritten || w.Offset != 0 {
		t.Fatalf("commit_if at the next offset: %+v", w)
	}
	wantAnswer(t, "publish", s.Write(ContractPublish, publishRec("p")), AnswerWritten)
	r := wantAnswer(t, "stale commit_if", s.Write(ContractCommitIf, conditional(commitRec("b", "k", "2"), 1)), AnswerRefused)
	if r.Tail != 2 || s.Next() != 2 || s.StateGet("k").Value != "1" {
		t.Fatalf("refusal %+v left next %d, k=%q; want tail 2, nothing written", r, s.Next(), s.StateGet("k").Value)
	}
	wantAnswer(t, "publish_if at the tail", s.Write(ContractPublishIf, conditional(publishRec("q"), 2)), AnswerWritten)
}

// "Applying a record checks, in order: its shape ..., then the ephemeral
// rule, then the feature gate, then the expected offset": "a commit_if on
// an ephemeral stream gets EphemeralStream, not Refused"; "commit records
// ... are refused with FeatureNotFinalized until an operator finalizes".
func TestContractModelRefusalOrder(t *testing.T) {
	live := NewContractScope(ContractConfig{Ephemeral: true, Finalized: true})
	wantAnswer(t, "commit_if on an ephemeral stream", live.Write(ContractCommitIf, conditional(commitRec("a", "k", "1"), 9)), AnswerEphemeralStream)
	wantAnswer(t, "publish on an ephemeral stream", live.Write(ContractPublish, publishRec("p")), AnswerAcked)
	wantAnswer(t, "state_get on an ephemeral stream", live.StateGet("k"), AnswerEphemeralStream)
	gated := NewContractScope(ContractConfig{})
	wantAnswer(t, "commit_if before finalization", gated.Write(ContractCommitIf, conditional(commitRec("a", "k", "1"), 9)), AnswerFeatureNotFinalized)
	wantAnswer(t, "publish before finalization", gated.Write(ContractPublish, publishRec("p")), AnswerWritten)
	gated.Finalize()
	wantAnswer(t, "commit after finalization", gated.Write(ContractCommit, commitRec("a", "k", "1")), AnswerWritten)
}

// The lease rule, step by step: "a lease has expired when the fetch's time
// is at or past its expiry"; expired leases first, oldest first, then new
// records; "an ack of an offset already acked changes nothing; an ack of
// an offset never handed out is refused"; "The group's committed position
// is its oldest leased offset, or its next offset when nothing is leased".
func TestContractModelLeaseRule(t *testing.T) {
	s := NewContractScope(ContractConfig{LeasesPerGroupMax: 3})
	for _, p := range []string{"a", "b", "c", "d"} {
		s.Write(ContractEnqueue, &felix.Record{Event: felix.EventEnqueue, Payload: []byte(p)})
	}
	f := wantAnswer(t, "first fetch", s.Fetch("g", 100, 10, 2), AnswerDeliveries)
	wantOffsets(t, "first fetch", f.Entries, 0, 1)
	if f.LeaseExpiryNs != 110 {
		t.Fatalf("expiry %d, want now+lease 110", f.LeaseExpiryNs)
	}
	wantOffsets(t, "before expiry", wantAnswer(t, "fetch at 109", s.Fetch("g", 109, 10, 4), AnswerDeliveries).Entries, 2) // lease cap 3
	wantOffsets(t, "at expiry", wantAnswer(t, "fetch at 110", s.Fetch("g", 110, 5, 4), AnswerDeliveries).Entries, 0, 1)
	wantAnswer(t, "ack of 1", s.Ack("g", 1), AnswerAcked)
	wantAnswer(t, "ack of 1 again", s.Ack("g", 1), AnswerAcked)
	wantAnswer(t, "ack never handed out", s.Ack("g", 3), AnswerInvalidRequest)
	if g := s.Groups()[0]; g.CommittedOffset != 0 || g.DeliverNextOffset != 3 {
		t.Fatalf("group %+v, want committed 0 (leased), next 3", g)
	}
	// 0 re-leased until 115, 2 until 119: at 119 both expired, 1 acked never again.
	wantOffsets(t, "acked not redelivered", wantAnswer(t, "fetch at 119", s.Fetch("g", 119, 10, 4), AnswerDeliveries).Entries, 0, 2, 3)
	wantAnswer(t, "ack 0", s.Ack("g", 0), AnswerAcked)
	if g := s.Groups()[0]; g.CommittedOffset != 2 {
		t.Fatalf("committed %d after acking 0 and 1, want 2", g.CommittedOffset)
	}
}

// "retention by count refuses the write that would drop a record a group
// still owes (Unavailable, nothing written) until the group acks past it";
// "a retain command ... drops below the smaller of its offset and the
// scope's lowest committed group position"; "Retention never removes an
// outbox entry".
func TestContractModelRetentionHoldsForGroups(t *testing.T) {
	s := NewContractScope(ContractConfig{RetainedLenMax: 2})
	s.Write(ContractPublish, publishRec("a"))
	s.Fetch("g", 0, 10, 1) // leases offset 0
	s.Write(ContractPublish, publishRec("b"))
	wantAnswer(t, "write dropping an owed record", s.Write(ContractPublish, publishRec("c")), AnswerUnavailable)
	s.Ack("g", 0)
	wantAnswer(t, "write once acked", s.Write(ContractPublish, publishRec("c")), AnswerWritten)
	if s.First() != 1 {
		t.Fatalf("first %d, want 1", s.First())
	}
	wantAnswer(t, "read before the window", s.Read(0, 5), AnswerBeforeWindow)
	if got := s.Retain(3); got != 1 {
		t.Fatalf("retain clamped to the group's committed position 1: first %d", got)
	}
	wantOffsets(t, "outbox keeps dropped rows", s.OutboxRead(0, 10).Entries, 0, 1, 2)
	s.OutboxTrim(1)
	if s.OutboxStart() != 2 {
		t.Fatalf("outbox start %d after trimming through 1, want 2", s.OutboxStart())
	}
	wantOffsets(t, "a read below the start begins at it", s.OutboxRead(0, 10).Entries, 2)
	if r := s.Read(3, 5); r.Answer != AnswerEntries || len(r.Entries) != 0 {
		t.Fatalf("read at the tail %+v, want empty", r)
	}
}

// "Each shard applies the operator's delete ... at a marker ... and the
// marker empties every scope there: its records, its state, its outbox
// rows, and its consumer groups, which start over at the shard's tail with
// no leases"; "Offsets go on from the tail"; "A deleted incarnation
// refuses every request".
func TestContractModelGenerations(t *testing.T) {
	s := NewContractScope(ContractConfig{Finalized: true})
	s.Write(ContractCommit, commitRec("a", "k", "1"))
	s.Fetch("g", 0, 10, 1)
	s.Delete()
	wantAnswer(t, "write to a deleted stream", s.Write(ContractCommit, commitRec("b", "k", "2")), AnswerUnknownStream)
	wantAnswer(t, "read of a deleted stream", s.StateGet("k"), AnswerUnknownStream)
	s.Create()
	if gen, deleted := s.Generation(); gen != 2 || deleted {
		t.Fatalf("generation %d deleted %t, want 2 live", gen, deleted)
	}
	if g := s.StateGet("k"); g.Found {
		t.Fatalf("the new generation reads the old one's key: %+v", g)
	}
	w := wantAnswer(t, "write in the new generation", s.Write(ContractCommit, commitRec("c", "k", "3")), AnswerWritten)
	if w.Offset != 1 {
		t.Fatalf("new generation's first offset %d, want 1 (offsets go on)", w.Offset)
	}
	if g := s.Groups()[0]; len(g.Leases) != 0 || g.DeliverNextOffset != 1 {
		t.Fatalf("group after the re-creation %+v, want restarted at 1 with no leases", g)
	}
	wantOffsets(t, "outbox of the new generation", s.OutboxRead(0, 10).Entries, 1)
}

// "a read registers the client and drains what was queued for it since its
// last read"; "hands each plain publish to the subscribers live at that
// moment"; an empty answer to a live subscriber means it is caught up.
func TestContractModelLiveReads(t *testing.T) {
	s := NewContractScope(ContractConfig{Ephemeral: true})
	s.Write(ContractPublish, publishRec("before"))
	if r := s.LiveRead(7, 16); len(r.Entries) != 0 {
		t.Fatalf("registering read %+v, want empty", r)
	}
	s.Write(ContractPublish, publishRec("p1"))
	s.Write(ContractPublish, publishRec("p2"))
	if n := s.LiveQueued(7); n != 2 {
		t.Fatalf("queued %d, want 2", n)
	}
	wantOffsets(t, "drain one", s.LiveRead(7, 1).Entries, 1)
	wantOffsets(t, "drain the rest", s.LiveRead(7, 16).Entries, 2)
	wantOffsets(t, "caught up", s.LiveRead(7, 16).Entries)
	s.Write(ContractPublish, publishRec("p3"))
	s.LiveReset()
	wantOffsets(t, "a new leader's first read registers", s.LiveRead(7, 16).Entries)
	s.LiveExpire(7)
	s.Write(ContractPublish, publishRec("p4"))
	if n := s.LiveQueued(7); n != 0 {
		t.Fatalf("an idle subscriber got %d publishes queued", n)
	}
	wantOffsets(t, "an idle subscriber's next read registers again", s.LiveRead(7, 16).Entries)
}
