package runner

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/properties"
)

// promotionTrace is a group's abstract trace up to a promotion: broker 1
// boots, leads and commits entries 2..4; broker 9 joins empty, installs a
// snapshot at index 3 and persists entry 4 (only with caughtUp); then
// broker 1 proposes broker 9 as a voter.
func promotionTrace(caughtUp bool) []modeltrace.Step {
	ents := func(terms ...uint64) []modeltrace.Entry {
		var out []modeltrace.Entry
		for _, t := range terms {
			out = append(out, modeltrace.Entry{Term: t})
		}
		return out
	}
	steps := []modeltrace.Step{
		{Kind: modeltrace.Restart, Broker: 1, Group: 2, Index: 1, Entries: ents(1), CommitMark: 1},
		{Kind: modeltrace.Restart, Broker: 9, Group: 2},
		{Kind: modeltrace.Promote, Broker: 1, Group: 2, Term: 2},
		{Kind: modeltrace.Persist, Broker: 1, Group: 2, Index: 2, Entries: ents(2, 2, 2)},
		{Kind: modeltrace.Commit, Broker: 1, Group: 2, Index: 4},
		{Kind: modeltrace.Snapshot, Broker: 9, Group: 2, Index: 3, Term: 2},
	}
	if caughtUp {
		steps = append(steps, modeltrace.Step{Kind: modeltrace.Persist, Broker: 9, Group: 2, Index: 4, Entries: ents(2)})
	}
	return append(steps, modeltrace.Step{Kind: modeltrace.ProposeConf, Broker: 1, Group: 2, Term: 2,
		Change: &modeltrace.ConfChange{Type: modeltrace.AddVoter, Node: 9}})
}

// TestPromotionCheckReadsTheTrace: fed a trace whose promoted broker holds
// the committed prefix, the check judges one promotion and passes; fed
// the same trace without the learner's last append (a hand-broken trace:
// promoted one entry short), it rejects it as PromotedCaughtUp.
func TestPromotionCheckReadsTheTrace(t *testing.T) {
	for _, caughtUp := range []bool{true, false} {
		pc := newPromotionCheck()
		for _, s := range promotionTrace(caughtUp) {
			pc.Step(&s)
		}
		if pc.judged != 1 || pc.unjudged != 0 {
			t.Fatalf("caught up %t: judged %d, unjudged %d promotions, want 1 and 0", caughtUp, pc.judged, pc.unjudged)
		}
		switch {
		case caughtUp && pc.found != nil:
			t.Errorf("a caught-up learner promoted: %v", pc.found)
		case !caughtUp && (pc.found == nil || !strings.HasPrefix(pc.found.Error(), string(properties.InvariantPromotedCaughtUp)+":") || !strings.Contains(pc.found.Error(), "ends at index 3")):
			t.Errorf("a learner promoted one committed entry short: got %v, want PromotedCaughtUp naming its log's end at 3", pc.found)
		}
	}
}
