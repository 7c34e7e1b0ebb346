package runner

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/properties"
)

// TestStoreLossNamedBeforeRaftPanics: under recovery-cuts-last-commit,
// seed 12 (crashat, fsyncerr and kill every 0.3 s on average) reopens a
// follower's store without appends it had acknowledged; once its leader's
// commit mark reaches them raft panics ("tocommit out of range"), which
// was all the run said before StoreKeepsAcknowledged. The check names the
// broker, the group, the acknowledged index and what the store recovered,
// at the boot, before the panic; the same seed without the defect passes.
func TestStoreLossNamedBeforeRaftPanics(t *testing.T) {
	const faults, gapNs, seed = "crashat,fsyncerr,kill", 3e8, 12
	res := runDefectPlan(t, "recovery-cuts-last-commit", faults, gapNs, seed, true)
	var named, crash *Violation
	for i := range res.Violations {
		switch v := &res.Violations[i]; v.Invariant {
		case properties.InvariantStoreKeepsAcknowledged:
			named = v
		case properties.InvariantCrash:
			crash = v
		default:
			t.Errorf("another check saw it too: %s: %.200s", v.Invariant, v.Message)
		}
	}
	if named == nil || crash == nil {
		t.Fatalf("want StoreKeepsAcknowledged and a raft panic, got %s", violationNames(res))
	}
	if named.AtNs > crash.AtNs || !strings.Contains(crash.Message, "tocommit") {
		t.Fatalf("the named loss at %d ns, the panic at %d ns (%.200s): want the loss first, raft's tocommit panic after", named.AtNs, crash.AtNs, crash.Message)
	}
	for _, want := range []string{"acknowledged its log through index", "its store recovered term", "are lost"} {
		if !strings.Contains(named.Message, want) {
			t.Errorf("the violation lacks %q: %s", want, named.Message)
		}
	}
	t.Logf("%s", named.Message)
	if clean := runDefectPlan(t, "recovery-cuts-last-commit", faults, gapNs, seed, false); !clean.OK() {
		t.Fatalf("without the defect:\n%s", clean.Summary())
	}
}
