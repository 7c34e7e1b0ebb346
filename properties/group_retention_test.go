package properties

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// TestGroupsWithinWindow: a replica whose groups all sit at or above their
// window start passes; a hand-broken one with a group below it (retention
// dropped records the group had not committed) fails GroupRecordsRetained,
// and a malformed window is refused as input, not judged.
func TestGroupsWithinWindow(t *testing.T) {
	pos := func(s felix.Scope, g string, c uint64) GroupPositionView {
		return GroupPositionView{Scope: s, Group: g, CommittedOffset: c}
	}
	other := felix.Scope{Tenant: "globex", Namespace: testScope.Namespace, Stream: testScope.Stream}
	good := []ScopeWindow{
		{Scope: testScope, FirstOffset: 5, NextOffset: 9, Groups: []GroupPositionView{pos(testScope, "billing", 9), pos(testScope, testGroup, 5)}},
		{Scope: other, FirstOffset: 0, NextOffset: 3, Groups: []GroupPositionView{pos(other, testGroup, 0)}},
	}
	if err := GroupsWithinWindow("broker-1", good); err != nil {
		t.Fatalf("groups at and above their windows: %v", err)
	}
	broken := append([]ScopeWindow(nil), good...)
	broken[0].Groups = []GroupPositionView{pos(testScope, "billing", 9), pos(testScope, testGroup, 4)}
	wantInvariant(t, "fulfilment at 4 below window [5, 9)", GroupsWithinWindow("broker-1", broken), InvariantGroupRecordsRetained)
	malformed := []ScopeWindow{{Scope: testScope, FirstOffset: 7, NextOffset: 6}}
	if err := GroupsWithinWindow("broker-1", malformed); err == nil || strings.HasPrefix(err.Error(), string(InvariantGroupRecordsRetained)) {
		t.Fatalf("a window starting past its tail: got %v, want an input refusal", err)
	}
	wantInvariant(t, "a drain's fetch refused as dropped", GroupStranded(GroupKey{Scope: testScope, Group: testGroup}, "offset dropped by retention: offset 4, readable from 5"), InvariantGroupRecordsRetained)
}
