package tla

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/modeltrace"
)

// TestGroupTraceKeepsTheGroupAndItsAnswers: another group's steps and an
// answer to a request proposed there are left out; this group's answer stays.
func TestGroupTraceKeepsTheGroupAndItsAnswers(t *testing.T) {
	good := goodTrace()
	other := modeltrace.Step{Kind: modeltrace.Request, Broker: 1, Group: tgroup + 1, Term: 2, Digest: 0xd2, Client: 9, ReqID: 2, Asked: &commitIf, Proposed: &commitIf}
	otherAnswer := modeltrace.Step{Kind: modeltrace.Answer, Broker: 1, Client: 9, ReqID: 2, Outcome: modeltrace.OutcomeWritten}
	mixed := append(append([]modeltrace.Step{other}, good...), otherAnswer)
	got := GroupTrace(mixed, tgroup)
	if len(got) != len(good) {
		t.Fatalf("group %d: %d steps, want the %d of goodTrace", tgroup, len(got), len(good))
	}
	for i := range got {
		if got[i].String() != good[i].String() {
			t.Errorf("step %d: %s, want %s", i+1, got[i].String(), good[i].String())
		}
	}
	if gs := TraceGroups(mixed); len(gs) != 2 || gs[0] != tgroup || gs[1] != tgroup+1 {
		t.Errorf("groups %v, want [%d %d]", gs, tgroup, tgroup+1)
	}
}

// TestTraceModuleRendersSteps: the Request step of goodTrace, written by
// hand in TraceFelixAtomicCommit.tla's record shape (digests renumbered
// from 1 in order of appearance, client 9 the first client).
func TestTraceModuleRendersSteps(t *testing.T) {
	module, cfg, err := TraceModule(goodTrace(), 3, "goodTrace")
	if err != nil {
		t.Fatal(err)
	}
	write := `[tenant |-> "acme", kind |-> "commit_if", cond |-> TRUE, exp |-> 0, ops |-> 1, dig |-> 1, sops |-> <<[key |-> 1, del |-> FALSE, val |-> 1]>>, ` +
		`retain |-> 0, feature |-> "", gen |-> 0, del |-> FALSE]`
	want := `[kind |-> "Request", b |-> 1, term |-> 2, idx |-> 0, entries |-> <<>>, cand |-> 0, data |-> 1, client |-> 1, req |-> 1, ` +
		`asked |-> ` + write + `, proposed |-> ` + write + `, ` +
		`outcome |-> "none", off |-> 0, error |-> "", commit |-> 0, applied |-> 0, scopes |-> <<>>, retained_max |-> 0, finalized |-> FALSE, ` +
		`change |-> [type |-> "none", node |-> 0], voters |-> {}, learners |-> {}, ` +
		`tenant |-> "", key |-> 0, found |-> FALSE, first |-> 0, recs |-> <<>>, readidx |-> 0]`
	for _, w := range []string{"---- MODULE " + TraceModuleName + " ----", "EXTENDS TraceFelixAtomicCommit", want, `TraceTenants == {"acme"}`} {
		if !strings.Contains(module, w) {
			t.Errorf("module lacks %s", w)
		}
	}
	if strings.Count(module, "[kind |-> ") != len(goodTrace()) {
		t.Errorf("module holds %d steps, want %d", strings.Count(module, "[kind |-> "), len(goodTrace()))
	}
	for _, w := range []string{"NBrokers = 3", "Ids <- TraceIds", "Trace <- TraceSteps", "NEXT Next",
		"INVARIANT\n    NoPartialCommit\n    VersionIsOffset\n    StateMatchesLog\n    CommittedNeverLost\n    TypeOK\n"} {
		if !strings.Contains(cfg, w) {
			t.Errorf("cfg lacks %s", w)
		}
	}
}

// TestTraceModuleRendersMembership: replaceTrace's identities are the
// three peers and the joiner 10; its membership steps carry their change
// and configuration.
func TestTraceModuleRendersMembership(t *testing.T) {
	module, _, err := TraceModule(replaceTrace(), 3, "replaceTrace")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"TraceIds == {1, 2, 3, 10}", `change |-> [type |-> "add_learner", node |-> 10]`,
		`[kind |-> "ApplyConf", b |-> 1, term |-> 2, idx |-> 5`, `voters |-> {1, 2}, learners |-> {10}, tenant |-> ""`} {
		if !strings.Contains(module, w) {
			t.Errorf("module lacks %s", w)
		}
	}
}

// TestTraceModuleRefusesWhatTLACannotHold: a broker that is no identity, a
// number past TLC's integers, a tenant that would break the string.
func TestTraceModuleRefusesWhatTLACannotHold(t *testing.T) {
	bad := []struct {
		name, cause string
		edit        func([]modeltrace.Step)
	}{
		{"broker 0", "no identity", func(s []modeltrace.Step) { s[0].Broker = 0 }},
		{"a joiner's id past int32", "past TLC's integers", func(s []modeltrace.Step) { s[0].Broker = 1 << 40 }},
		{"index past int32", "past TLC's integers", func(s []modeltrace.Step) { s[10].Index = 1 << 40 }},
		{"tenant with a quote", "not plain printable", func(s []modeltrace.Step) {
			w := commitIf
			w.Tenant = `a"b`
			s[7].Asked = &w
		}},
	}
	for _, c := range bad {
		steps := goodTrace()
		c.edit(steps)
		if _, _, err := TraceModule(steps, 3, "x"); err == nil || !strings.Contains(err.Error(), c.cause) {
			t.Errorf("%s: %v, want an error naming %q", c.name, err, c.cause)
		}
	}
}

// TestTraceModuleRendersReads: goodTrace's reads (readTrace) name their
// scope, the key by the number its write's operation has, the value read
// by the number the operation's value has, the state read's client by
// its number (client 8 the second client) and its read index, and a
// subscriber's records by the numbers of the writes' digests.
func TestTraceModuleRendersReads(t *testing.T) {
	module, _, err := TraceModule(readTrace(), 3, "readTrace")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		`[kind |-> "StateRead", b |-> 1, term |-> 0, idx |-> 0, entries |-> <<>>, cand |-> 0, data |-> 1, client |-> 2, req |-> 1, asked |-> NoWrite, proposed |-> NoWrite, outcome |-> "none", off |-> 0, error |-> "", commit |-> 0, applied |-> 3, ` +
			`scopes |-> <<>>, retained_max |-> 0, finalized |-> FALSE, change |-> [type |-> "none", node |-> 0], voters |-> {}, learners |-> {}, tenant |-> "acme", key |-> 1, found |-> TRUE, first |-> 0, recs |-> <<>>, readidx |-> 3]`,
		`[kind |-> "SubscriberRead", b |-> 2, term |-> 0, idx |-> 0, entries |-> <<>>, cand |-> 0, data |-> 0, client |-> 0, req |-> 0, asked |-> NoWrite, proposed |-> NoWrite, outcome |-> "none", off |-> 0, error |-> "", commit |-> 0, applied |-> 3, ` +
			`scopes |-> <<>>, retained_max |-> 0, finalized |-> FALSE, change |-> [type |-> "none", node |-> 0], voters |-> {}, learners |-> {}, tenant |-> "acme", key |-> 0, found |-> FALSE, first |-> 0, recs |-> <<1>>, readidx |-> 0]`,
	} {
		if !strings.Contains(module, w) {
			t.Errorf("module lacks %s", w)
		}
	}
}
