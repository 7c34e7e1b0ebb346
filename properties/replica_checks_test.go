package properties

import (
	"strings"
	"testing"
)

// Each replica check is shown holding on a good view and failing, with the
// values in its message, on a view broken in the one way it must catch.

func vput(k, v string) ViewOp { return ViewOp{Key: k, Value: v} }
func vdel(k string) ViewOp    { return ViewOp{Delete: true, Key: k} }

func ventry(off uint64, ev string, ops ...ViewOp) ViewEntry {
	return ViewEntry{Offset: off, HasEvent: true, Event: ev, Ops: ops}
}

// goodReplica: c0 puts a and b, c1 overwrites a and deletes b.
func goodReplica(name string) ReplicaView {
	return ReplicaView{
		Name:  name,
		Log:   []ViewEntry{ventry(0, "c0", vput("a", "1"), vput("b", "1")), ventry(1, "c1", vput("a", "2"), vdel("b"))},
		State: []ViewSlot{{Key: "a", Value: "2", Version: 1}},
	}
}

func viewIntent(ev string) ([]ViewOp, bool) {
	switch ev {
	case "c0":
		return []ViewOp{vput("a", "1"), vput("b", "1")}, true
	case "c1":
		return []ViewOp{vput("a", "2"), vdel("b")}, true
	}
	return nil, false
}

func wantHold(t *testing.T, name string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: want it to hold, got %v", name, err)
	}
}

func wantFail(t *testing.T, name string, err error, sub string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: want a violation mentioning %q, got none", name, sub)
	}
	if !strings.Contains(err.Error(), sub) {
		t.Fatalf("%s: violation %q does not mention %q", name, err, sub)
	}
}

func TestStateMatchesLog(t *testing.T) {
	r := goodReplica("b1")
	wantHold(t, "good", StateMatchesLog(&r))
	r.State[0].Value = "1"
	wantFail(t, "stale value", StateMatchesLog(&r), "folds to {a=2@1}")
	r = goodReplica("b1")
	r.State = append(r.State, ViewSlot{Key: "b", Value: "1", Version: 0})
	wantFail(t, "delete not applied", StateMatchesLog(&r), "StateMatchesLog: replica b1")
	r = goodReplica("b1")
	r.Log[1].Offset = 5
	wantFail(t, "gap", StateMatchesLog(&r), "not contiguous")
	r = goodReplica("b1")
	r.State = []ViewSlot{{Key: "b"}, {Key: "a"}}
	wantFail(t, "unsorted", StateMatchesLog(&r), "not strictly ascending")
}

func TestVersionIsOffset(t *testing.T) {
	r := goodReplica("b2")
	wantHold(t, "good", VersionIsOffset(&r))
	r.State[0].Version = 0
	wantFail(t, "older version", VersionIsOffset(&r), "does not put that value")
	r.State[0].Version = 7
	wantFail(t, "beyond log", VersionIsOffset(&r), "version 7")
}

func TestCommittedPrefixAgreement(t *testing.T) {
	a, b := goodReplica("b1"), goodReplica("b2")
	b.Log = b.Log[:1]
	wantHold(t, "prefix", CommittedPrefixAgreement([]ReplicaView{a, b}))
	b.Log[0].Event = "other"
	wantFail(t, "diverged", CommittedPrefixAgreement([]ReplicaView{a, b}), "at offset 0 replica b1 holds event \"c0\", replica b2 holds event \"other\"")
}

func TestCommittedNeverLost(t *testing.T) {
	a, b := goodReplica("b1"), goodReplica("b2")
	b.Log = b.Log[:1]
	acks := []AckedWrite{{Event: "c0", Offset: 0}, {Event: "c1", Offset: 1}}
	wantHold(t, "kept", CommittedNeverLost(acks, []ReplicaView{a, b}))
	a.Log[1].Event = "c9"
	wantFail(t, "overwritten", CommittedNeverLost(acks, []ReplicaView{a, b}), "acknowledged at offset 1, but replica b1 holds event \"c9\"")
}

func TestNoPartialCommit(t *testing.T) {
	r := goodReplica("b1")
	obs := ReaderView{Broker: "b1", Events: r.Log, State: r.State}
	wantHold(t, "whole", NoPartialCommit(&obs, viewIntent))
	empty := ReaderView{Broker: "b1"}
	wantHold(t, "nothing yet", NoPartialCommit(&empty, viewIntent))

	eventOnly := ReaderView{Broker: "b3", Events: r.Log[:1]}
	wantFail(t, "event without state", NoPartialCommit(&eventOnly, viewIntent), "event without its state")

	stateOnly := ReaderView{Broker: "b3", State: []ViewSlot{{Key: "a", Value: "1"}}}
	wantFail(t, "state without event", NoPartialCommit(&stateOnly, viewIntent), "state without its event")

	half := ReaderView{Broker: "b3", Events: r.Log, State: []ViewSlot{{Key: "a", Value: "1"}}}
	wantFail(t, "half applied", NoPartialCommit(&half, viewIntent), "half a commit")

	noEvent := ReaderView{Broker: "b3", Events: []ViewEntry{{Offset: 0}}}
	wantFail(t, "record without event", NoPartialCommit(&noEvent, viewIntent), "has none")

	unknown := ReaderView{Broker: "b3", Events: []ViewEntry{ventry(0, "zz")}}
	wantFail(t, "unknown event", NoPartialCommit(&unknown, viewIntent), "which no commit wrote")
}

func TestConditionalWrites(t *testing.T) {
	r := goodReplica("b1")
	r.Log[1].Conditional, r.Log[1].ExpectedOffset = true, 1
	written := ConditionalOutcome{Event: "c1", ExpectedOffset: 1, Written: true, Offset: 1}
	refused := ConditionalOutcome{Event: "c7", ExpectedOffset: 1, Offset: 2}
	wantHold(t, "good", ConditionalWrites([]ConditionalOutcome{written, refused}, []ReplicaView{r}))

	moved := r
	moved.Log = append([]ViewEntry(nil), r.Log...)
	moved.Log[1].ExpectedOffset = 0
	wantFail(t, "landed elsewhere", ConditionalWrites(nil, []ReplicaView{moved}), "expected offset 0")

	refusedButThere := ConditionalOutcome{Event: "c1", ExpectedOffset: 4, Offset: 2}
	wantFail(t, "refused but written", ConditionalWrites([]ConditionalOutcome{refusedButThere}, []ReplicaView{r}), "was refused (tail 2) but replica b1 holds it")

	lyingTail := ConditionalOutcome{Event: "c7", ExpectedOffset: 2, Offset: 2}
	wantFail(t, "tail equals expected", ConditionalWrites([]ConditionalOutcome{lyingTail}, []ReplicaView{r}), "which is the offset it expected")

	wrongAnswer := ConditionalOutcome{Event: "c1", ExpectedOffset: 1, Written: true, Offset: 0}
	wantFail(t, "written elsewhere", ConditionalWrites([]ConditionalOutcome{wrongAnswer}, []ReplicaView{r}), "was written at 0")
}

// TestRetentionRuleIsChecked: the retention rule (the state view is the
// fold of the retained window) is what StateMatchesLog and VersionIsOffset
// check. A replica that dropped c0 and c1 but kept the key c1 wrote last
// (the live view of the old rule) is caught by both; the view that forgot
// it holds.
func TestRetentionRuleIsChecked(t *testing.T) {
	r := goodReplica("b3")
	r.Log = append(r.Log, ventry(2, "c2", vput("c", "3")))
	r.Log = r.Log[2:]
	r.FirstOffset, r.NextOffset = 2, 3
	r.State = []ViewSlot{{Key: "a", Value: "2", Version: 1}, {Key: "c", Value: "3", Version: 2}}
	wantFail(t, "kept a key whose last write was dropped", StateMatchesLog(&r), "folds to {c=3@2}")
	wantFail(t, "kept a key whose last write was dropped", VersionIsOffset(&r), `key "a" has version 1`)
	r.State = r.State[1:]
	wantHold(t, "forgot it", StateMatchesLog(&r))
	wantHold(t, "forgot it", VersionIsOffset(&r))
}
