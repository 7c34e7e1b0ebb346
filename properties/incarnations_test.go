package properties

import (
	"strings"
	"testing"
)

// A delete asked at 100 and done at 150, a create asked at 300 and done
// at 350; "a" was acknowledged before the delete.
var changesDeleteCreate = []StreamChange{{Deleted: true, AskedNs: 100, DoneNs: 150, Proposed: true}, {AskedNs: 300, DoneNs: 350, Proposed: true}}

func TestIncarnationsApartPassesACleanHistory(t *testing.T) {
	ops := []StreamOp{
		{Kind: StreamOpWrite, InvokedNs: 10, AnsweredNs: 20, Written: true, Value: "a"},
		{Kind: StreamOpRead, InvokedNs: 30, AnsweredNs: 40, Found: true, Value: "a"},
		{Kind: StreamOpWrite, InvokedNs: 200, AnsweredNs: 210}, // refused: deleted
		{Kind: StreamOpRead, InvokedNs: 360, AnsweredNs: 370},  // absent in generation 2
		{Kind: StreamOpWrite, InvokedNs: 380, AnsweredNs: 390, Written: true, Value: "b"},
		{Kind: StreamOpRead, InvokedNs: 400, AnsweredNs: 410, Found: true, Value: "b", Version: 7},
		// sent before the create was done: it may see either generation
		{Kind: StreamOpRead, InvokedNs: 320, AnsweredNs: 330, Found: true, Value: "a"},
		{Kind: StreamOpGroupFetch, InvokedNs: 30, AnsweredNs: 40, Values: []string{"a"}},
		{Kind: StreamOpGroupFetch, InvokedNs: 320, AnsweredNs: 330, Values: []string{"a"}},
		{Kind: StreamOpGroupFetch, InvokedNs: 400, AnsweredNs: 410, Values: []string{"b"}},
	}
	if err := IncarnationsApart(changesDeleteCreate, ops); err != nil {
		t.Fatal(err)
	}
}

// TestIncarnationsApartCatchesHandBrokenHistories: a read of the old
// generation's value after the create, and a write acknowledged by the
// deleted stream, are each reported under the invariant.
func TestIncarnationsApartCatchesHandBrokenHistories(t *testing.T) {
	write := StreamOp{Kind: StreamOpWrite, InvokedNs: 10, AnsweredNs: 20, Written: true, Value: "a"}
	for name, tc := range map[string]struct {
		ops  []StreamOp
		want string
	}{
		"old value read after create": {[]StreamOp{write, {Kind: StreamOpRead, InvokedNs: 360, AnsweredNs: 370, Found: true, Value: "a", Version: 3}},
			`returned "a" at version 3`},
		"write accepted while deleted": {[]StreamOp{write, {Kind: StreamOpWrite, InvokedNs: 200, AnsweredNs: 210, Written: true, Value: "x"}},
			"a deleted stream accepted it"},
		"old record fetched after create": {[]StreamOp{write, {Kind: StreamOpGroupFetch, InvokedNs: 360, AnsweredNs: 370, Values: []string{"a"}}},
			`group fetch sent at 360 ns, after the create asked at 300 ns was done at 350 ns, was handed "a"`},
		"group stranded after create": {[]StreamOp{write, {Kind: StreamOpGroupFetch, InvokedNs: 360, AnsweredNs: 370, BeforeWindow: true}},
			"was refused as below the retained window"},
	} {
		err := IncarnationsApart(changesDeleteCreate, tc.ops)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), string(InvariantIncarnationsApart)) {
			t.Fatalf("%s: err %v, want one naming %s and %q", name, err, InvariantIncarnationsApart, tc.want)
		}
	}
	// A group fetch refused below the window once the next delete was
	// asked judges nothing (the stream is going away).
	later := append(append([]StreamChange(nil), changesDeleteCreate...), StreamChange{Deleted: true, AskedNs: 500, DoneNs: 550, Proposed: true})
	if err := IncarnationsApart(later, []StreamOp{write, {Kind: StreamOpGroupFetch, InvokedNs: 490, AnsweredNs: 510, BeforeWindow: true}}); err != nil {
		t.Fatal(err)
	}
	// A change never done, or done without the operator's proposal,
	// judges nothing.
	for _, cs := range [][]StreamChange{
		{{Deleted: true, AskedNs: 100, Proposed: true}, {AskedNs: 300, Proposed: true}},
		{{Deleted: true, AskedNs: 100, DoneNs: 150}, {AskedNs: 300, DoneNs: 350}},
	} {
		if err := IncarnationsApart(cs, []StreamOp{write, {Kind: StreamOpRead, InvokedNs: 360, Found: true, Value: "a"}}); err != nil {
			t.Fatalf("changes %+v: %v", cs, err)
		}
	}
}

// TestIncarnationsApartStopsWhereTheListStops: a write acknowledged after
// a delete was done is judged only up to where the list of changes stops
// (an unlisted create may have made it legitimate), and still judged
// before that point.
func TestIncarnationsApartStopsWhereTheListStops(t *testing.T) {
	deleted := []StreamChange{{Deleted: true, AskedNs: 100, DoneNs: 150, Proposed: true}}
	acked := StreamOp{Kind: StreamOpWrite, InvokedNs: 400, AnsweredNs: 450, Written: true, Value: "x"}
	if err := IncarnationsApart(deleted, []StreamOp{acked}); err == nil || !strings.Contains(err.Error(), "a deleted stream accepted it") {
		t.Fatalf("no list stop: err %v, want the write after the delete reported", err)
	}
	stopped := append(append([]StreamChange(nil), deleted...), StreamChange{AskedNs: 300, Unlisted: true})
	if err := IncarnationsApart(stopped, []StreamOp{acked}); err != nil {
		t.Fatalf("a write answered after the list stops was judged: %v", err)
	}
	early := StreamOp{Kind: StreamOpWrite, InvokedNs: 200, AnsweredNs: 250, Written: true, Value: "y"}
	if err := IncarnationsApart(stopped, []StreamOp{early, acked}); err == nil || !strings.Contains(err.Error(), `"y"`) {
		t.Fatalf("a write answered before the list stops: err %v, want it reported", err)
	}
}
