package tla

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/modeltrace"
)

// pruneKeepTest is the window TestPruningKeepsVerdicts prunes with: 8
// committed entries, so that the test traces' writes do go.
const pruneKeepTest = 8

// pruningCorpus is every trace the tests judge: the hand-written ones,
// each broken one of the rule tests, the checked-in real traces and their
// hand edits.
func pruningCorpus(t *testing.T) map[string][]modeltrace.Step {
	out := map[string][]modeltrace.Step{
		"goodTrace": goodTrace(), "readTrace": readTrace(), "replaceTrace": replaceTrace(), "followerFirst": followerFirst(),
		"retainTrace": retainTrace(1, 1), "markerTrace": markerTrace(modeltrace.Write{Kind: modeltrace.KindFeature, Feature: featureAtomicCommit}, modeltrace.OutcomeWritten, ""),
	}
	files, err := filepath.Glob(filepath.Join("testdata", "traces", "*.ndjson"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no checked-in traces: %v", err)
	}
	for _, f := range files {
		out[f] = readTraceSteps(t, f)
	}
	return out
}

// TestPruningKeepsVerdicts: every trace of the corpus, and each one cut
// at every step, gets the same result from a validator that drops write
// records 8 committed entries after their last naming as from one that
// keeps them all, and the checked-in real traces do drop records that
// way (pruning is not vacuous here).
func TestPruningKeepsVerdicts(t *testing.T) {
	pruned := 0
	for name, steps := range pruningCorpus(t) {
		keep, drop := NewTraceValidator(3), NewTraceValidator(3)
		keep.KeepWrites(1 << 62)
		drop.KeepWrites(pruneKeepTest)
		for j := range steps {
			keep.Step(&steps[j])
			drop.Step(&steps[j])
			if a, b := keep.Result(), drop.Result(); a.Valid != b.Valid || a.Steps != b.Steps || (a.Rejection != nil && a.Rejection.Error() != b.Rejection.Error()) {
				t.Fatalf("%s after step %d: kept %+v %v, pruned %+v %v", name, j+1, a, a.Rejection, b, b.Rejection)
			}
		}
		pruned += keep.WriteRecords() - drop.WriteRecords()
	}
	if pruned == 0 {
		t.Fatal("no write record was dropped: the test proves nothing")
	}
	t.Logf("%d write records dropped over the corpus", pruned)
}

// TestPrunedWriteNamedAgain: a write named again after its record went
// (its data appended fresh by a leader, as a forwarded proposal arriving
// past the window would) is refused as no client's write, where a
// validator keeping every record takes it (the same write may reach the
// log twice): the window is where the validator stops judging a write,
// and it refuses rather than passes what it can no longer judge.
func TestPrunedWriteNamedAgain(t *testing.T) {
	w2 := commitIf
	w2.Conditional, w2.Kind, w2.Digest = false, modeltrace.KindCommit, 0xabd
	steps := append(goodTrace(),
		modeltrace.Step{Kind: modeltrace.Request, Broker: 1, Group: tgroup, Term: 2, Digest: 0xd3, Client: 9, ReqID: 2, Asked: &w2, Proposed: &w2},
		modeltrace.Step{Kind: modeltrace.Persist, Broker: 1, Group: tgroup, Term: 2, Index: 4, Entries: []modeltrace.Entry{{Term: 2, Digest: 0xd3}}},
		modeltrace.Step{Kind: modeltrace.Persist, Broker: 2, Group: tgroup, Term: 2, Index: 4, Entries: []modeltrace.Entry{{Term: 2, Digest: 0xd3}}},
		modeltrace.Step{Kind: modeltrace.Commit, Broker: 1, Group: tgroup, Index: 4},
		modeltrace.Step{Kind: modeltrace.Persist, Broker: 1, Group: tgroup, Term: 2, Index: 5, Entries: []modeltrace.Entry{{Term: 2, Digest: tproposal}}},
	)
	keep, drop := NewTraceValidator(3), NewTraceValidator(3)
	drop.KeepWrites(1)
	modeltrace.Replay(steps, keep)
	modeltrace.Replay(steps, drop)
	if !keep.Result().Valid {
		t.Fatalf("the write appended again, records kept: %v", keep.Result().Rejection)
	}
	if r := drop.Result().Rejection; r == nil || r.Step != len(steps) || !strings.Contains(r.Reason, "no client's write") {
		t.Fatalf("the pruned write appended again: %+v %v", drop.Result(), r)
	}
}
