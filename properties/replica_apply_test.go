package properties

import "testing"

// lookupOf serves a state view as a StateLookup.
func lookupOf(state []ViewSlot) StateLookup {
	return func(key string) (string, uint64, bool) {
		for _, s := range state {
			if s.Key == key {
				return s.Value, s.Version, true
			}
		}
		return "", 0, false
	}
}

// TestAppliedWhole: a record whose state changes all show at its offset
// passes (a key the record writes twice shows the last write); a record
// whose put is missing, whose delete left the key, whose log slot is
// empty or holds another record fails, naming the offset.
func TestAppliedWhole(t *testing.T) {
	e := ViewEntry{Offset: 7, HasEvent: true, Event: "ev", Ops: []ViewOp{
		{Key: "a", Value: "1"}, {Key: "b", Delete: true}, {Key: "a", Value: "2"}}}
	whole := []ViewSlot{{Key: "a", Value: "2", Version: 7}, {Key: "c", Value: "x", Version: 3}}
	if err := AppliedWhole("b1", 7, &e, lookupOf(whole)); err != nil {
		t.Fatal(err)
	}
	eventOnly := []ViewSlot{{Key: "a", Value: "0", Version: 5}, {Key: "b", Value: "old", Version: 5}}
	wantErr(t, "event without state", AppliedWhole("b1", 7, &e, lookupOf(eventOnly)),
		"NoPartialCommit: replica b1 applied offset 7", `still holds b="old" at version 5`)
	firstOnly := []ViewSlot{{Key: "a", Value: "1", Version: 7}}
	wantErr(t, "first write only", AppliedWhole("b1", 7, &e, lookupOf(firstOnly)), `holds a="1" at version 7`)
	kept := []ViewSlot{{Key: "a", Value: "2", Version: 7}, {Key: "b", Value: "old", Version: 5}}
	wantErr(t, "delete not applied", AppliedWhole("b1", 7, &e, lookupOf(kept)), `still holds b="old"`)
	wantErr(t, "no log entry", AppliedWhole("b1", 7, nil, lookupOf(whole)), "applied a record at offset 7 but its log holds nothing there")
	noEvent := ViewEntry{Offset: 7, Ops: e.Ops}
	wantErr(t, "state without an event", AppliedWhole("b1", 7, &noEvent, lookupOf(whole)), "logged record has 3 state operations and no event")
}
