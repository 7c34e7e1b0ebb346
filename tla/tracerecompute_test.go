package tla

import (
	"testing"

	"github.com/felixsim/felixsim/modeltrace"
)

// The rules of issue 31's item 3, each on goodTrace (or readTrace) broken
// in the one way the rule exists to catch. The expectations come from the
// broker's contract as the seeds and docs/atomic-commit.md state it (raft
// refuses an append of an older term; a state read is linearizable;
// retention drops at log positions; a commit is refused only before
// atomic_commit is finalized or once its stream is deleted), not from the
// validator's code.

// TestAppendTermNeverGoesBack: b2 votes for b3 in term 3 before it stores
// b1's entries of term 2: the append, of term 2, is refused at the
// Persist. The same Persist claiming term 3 is refused too: no broker
// leads term 3; b3's claiming term 1 holds an entry of the newer term 2.
func TestAppendTermNeverGoesBack(t *testing.T) {
	vote3 := modeltrace.Step{Kind: modeltrace.Vote, Broker: 2, Group: tgroup, Term: 3, Candidate: 3}
	late := insert(goodTrace(), 9, vote3) // just before b2's Persist (step 10)
	claim3 := insert(goodTrace(), 9, vote3)
	claim3[10].Term = 3
	claim1 := append(goodTrace(), modeltrace.Step{Kind: modeltrace.Persist, Broker: 3, Group: tgroup, Term: 1, Index: 2,
		Entries: []modeltrace.Entry{{Term: 2}, {Term: 2, Digest: tproposal}}})
	checkRuleCases(t, []ruleCase{
		{"b2 stores a deposed leader's entries after voting in term 3", late, 11, "", "takes entries in term 2 after it voted in, led or took entries in the newer term 3"},
		{"b2 claims it took them in term 3", claim3, 11, "", "no broker leads term 3"},
		{"b3 claims it took entries of term 2 in term 1", claim1, 18, "", "newer than the term 1 of the append"},
	})
	// b2 votes in term 2 itself (for b1) first: the append is of its term.
	if res := validate(goodTrace()); !res.Valid {
		t.Fatalf("goodTrace refused: %v", res.Rejection)
	}
}

// commitApplies returns goodTrace with both Applies of its commit_if
// (entry 3, b1's at step 13 and b2's at 17) given outcome o and error e.
func commitApplies(o modeltrace.Outcome, e string) []modeltrace.Step {
	steps := goodTrace()
	for _, j := range []int{12, 16} {
		steps[j].Outcome, steps[j].Offset, steps[j].Error = o, 0, e
	}
	return steps
}

// followerFirst is goodTrace with b2 learning the commit mark and
// applying entries 2 and 3 before b1 applies them (b1's applies and its
// answer follow).
func followerFirst() []modeltrace.Step {
	g := goodTrace()
	out := append([]modeltrace.Step(nil), g[:11]...) // up to b1's Commit
	out = append(out, g[14:17]...)                   // b2's Commit and Applies
	return append(out, g[11:14]...)                  // b1's Applies and Answer
}

// TestApplyOutcomeRecomputed: an apply's outcome, errors included, is
// what the record and the broker's state give: a commit of a finalized
// group is written, so one applied as an error on every broker is
// refused at the first such Apply, and a follower that applies it as an
// error before its leader does is refused at its own Apply; before
// atomic_commit is finalized a commit must be refused with
// FeatureNotFinalized; once the stream is deleted every write must be
// refused with UnknownStream.
func TestApplyOutcomeRecomputed(t *testing.T) {
	notFinalized := goodTrace()
	for j := 0; j < 3; j++ {
		notFinalized[j].Finalized = false
	}
	errFirst := followerFirst()
	errFirst[13].Outcome, errFirst[13].Offset, errFirst[13].Error = modeltrace.OutcomeError, 0, errNotFinalized
	if res := validate(followerFirst()); !res.Valid {
		t.Fatalf("b2 applying before b1 refused: %v", res.Rejection)
	}
	checkRuleCases(t, []ruleCase{
		{"a valid commit applied as an error on every broker", commitApplies(modeltrace.OutcomeError, errNotFinalized), 13, "", "so the model gives written at 0"},
		{"the follower errs first", errFirst, 14, "", "so the model gives written at 0"},
		{"a commit written before atomic_commit is finalized", notFinalized, 13, "", "finalized false, generation 1, live, so the model gives error FeatureNotFinalized"},
		{"a commit refused with another error", func() []modeltrace.Step {
			s := commitApplies(modeltrace.OutcomeError, errNotFinalized)
			for j := 0; j < 3; j++ {
				s[j].Finalized = false
			}
			s[12].Error = errDeleted
			return s
		}(), 13, "", "so the model gives error FeatureNotFinalized"},
	})
	// Refused on both with FeatureNotFinalized, as the model gives, it is
	// valid (the client is answered nothing: its answer step goes).
	refused := commitApplies(modeltrace.OutcomeError, errNotFinalized)
	for j := 0; j < 3; j++ {
		refused[j].Finalized = false
	}
	refused = append(refused[:13:13], refused[14:]...)
	if res := validate(refused); !res.Valid {
		t.Errorf("a commit refused before finalization refused: %v", res.Rejection)
	}
}

// markerTrace is goodTrace booted without atomic_commit finalized, with
// b1 proposing a marker (Write w, entry 3's data tproposal's place taken
// by it) before the client's commit_if, now entry 4: the marker is
// stored by b1 and b2, committed and applied by b1, then the commit_if.
func markerTrace(w modeltrace.Write, commitOutcome modeltrace.Outcome, commitErr string) []modeltrace.Step {
	const marker = 0xe1
	c := commitIf
	boot := func(b uint64) modeltrace.Step {
		return modeltrace.Step{Kind: modeltrace.Restart, Broker: b, Group: tgroup, Index: 1, Entries: []modeltrace.Entry{{Term: 1}}, CommitMark: 1, Applied: 1}
	}
	return []modeltrace.Step{
		boot(1), boot(2), boot(3),
		{Kind: modeltrace.Vote, Broker: 1, Group: tgroup, Term: 2, Candidate: 1},
		{Kind: modeltrace.Vote, Broker: 2, Group: tgroup, Term: 2, Candidate: 1},
		{Kind: modeltrace.Promote, Broker: 1, Group: tgroup, Term: 2},
		{Kind: modeltrace.Request, Broker: 1, Group: tgroup, Term: 2, Digest: marker, Asked: &w, Proposed: &w},
		{Kind: modeltrace.Request, Broker: 1, Group: tgroup, Term: 2, Digest: tproposal, Client: 9, ReqID: 1, Asked: &c, Proposed: &c},
		{Kind: modeltrace.Persist, Broker: 1, Group: tgroup, Term: 2, Index: 2, Entries: []modeltrace.Entry{{Term: 2}, {Term: 2, Digest: marker}, {Term: 2, Digest: tproposal}}},
		{Kind: modeltrace.Persist, Broker: 2, Group: tgroup, Term: 2, Index: 2, Entries: []modeltrace.Entry{{Term: 2}, {Term: 2, Digest: marker}, {Term: 2, Digest: tproposal}}},
		{Kind: modeltrace.Commit, Broker: 1, Group: tgroup, Index: 4},
		{Kind: modeltrace.Apply, Broker: 1, Group: tgroup, Index: 2, Term: 2},
		{Kind: modeltrace.Apply, Broker: 1, Group: tgroup, Index: 3, Term: 2, Digest: marker},
		{Kind: modeltrace.Apply, Broker: 1, Group: tgroup, Index: 4, Term: 2, Digest: tproposal, Outcome: commitOutcome, Error: commitErr},
	}
}

// TestMarkersDecideApplies: a feature marker finalizes atomic_commit at
// its log position (the commit after it is written; without the marker
// it must be refused), and an incarnation marker that deletes the stream
// refuses the write after it with UnknownStream (written, it is refused:
// the write would land in a deleted stream).
func TestMarkersDecideApplies(t *testing.T) {
	feature := modeltrace.Write{Kind: modeltrace.KindFeature, Feature: featureAtomicCommit}
	other := modeltrace.Write{Kind: modeltrace.KindFeature, Feature: "another"}
	deleted := modeltrace.Write{Kind: modeltrace.KindIncarnation, Generation: 1, Deleted: true}
	for name, tr := range map[string][]modeltrace.Step{
		"a commit after the finalizing marker, written":    markerTrace(feature, modeltrace.OutcomeWritten, ""),
		"a commit after another feature's marker, refused": markerTrace(other, modeltrace.OutcomeError, errNotFinalized),
		"a commit after the stream's delete, refused":      markerTrace(deleted, modeltrace.OutcomeError, errDeleted),
	} {
		if res := validate(tr); !res.Valid {
			t.Errorf("%s: %v", name, res.Rejection)
		}
	}
	checkRuleCases(t, []ruleCase{
		{"a commit after another feature's marker, written", markerTrace(other, modeltrace.OutcomeWritten, ""), 14, "", "so the model gives error FeatureNotFinalized"},
		{"a commit after the stream's delete, written", markerTrace(deleted, modeltrace.OutcomeWritten, ""), 14, "", "generation 1, deleted, so the model gives error UnknownStream"},
		{"a commit after the finalizing marker, refused", markerTrace(feature, modeltrace.OutcomeError, errNotFinalized), 14, "", "so the model gives written at 0"},
		{"a marker that names a scope", func() []modeltrace.Step {
			w := feature
			w.Tenant = "acme"
			return markerTrace(w, modeltrace.OutcomeWritten, "")
		}(), 7, "", "a feature marker names scope"},
	})
}

// retainTrace is readTrace's goodTrace with a retention step after it:
// b1 proposes dropping acme's records below offset 1 (entry 4), stored by
// b1 and b2, committed and applied by b1, which reports acme retained
// from first; then b1 begins and serves client 8's read of k, finding
// it absent (its one record dropped) with first offset readFirst.
func retainTrace(first, readFirst uint64) []modeltrace.Step {
	const retain = 0xe2
	w := modeltrace.Write{Tenant: "acme", Kind: modeltrace.KindRetain, Retain: 1}
	return append(goodTrace(),
		modeltrace.Step{Kind: modeltrace.Request, Broker: 1, Group: tgroup, Term: 2, Digest: retain, Asked: &w, Proposed: &w},
		modeltrace.Step{Kind: modeltrace.Persist, Broker: 1, Group: tgroup, Term: 2, Index: 4, Entries: []modeltrace.Entry{{Term: 2, Digest: retain}}},
		modeltrace.Step{Kind: modeltrace.Persist, Broker: 2, Group: tgroup, Term: 2, Index: 4, Entries: []modeltrace.Entry{{Term: 2, Digest: retain}}},
		modeltrace.Step{Kind: modeltrace.Commit, Broker: 1, Group: tgroup, Index: 4},
		modeltrace.Step{Kind: modeltrace.Apply, Broker: 1, Group: tgroup, Index: 4, Term: 2, Digest: retain, First: first},
		readStart(1, 8, 1, "k"),
		modeltrace.Step{Kind: modeltrace.StateRead, Broker: 1, Group: tgroup, Client: 8, ReqID: 1, Tenant: "acme", Key: "k", Applied: 4, ReadIndex: 4, First: readFirst},
	)
}

// TestRetentionPointTracked: a scope's first retained offset is what its
// retention steps set at their log positions: a read reports it (one
// claiming a lower point, as if retention had forgotten a drop, is
// refused, and so is one claiming a higher), a key whose last write it
// dropped reads absent, a retention step moves it no further than its
// offset, and a restart rebuilds it.
func TestRetentionPointTracked(t *testing.T) {
	n := len(goodTrace())
	if res := validate(retainTrace(1, 1)); !res.Valid {
		t.Fatalf("a read after a retention step refused: %v", res.Rejection)
	}
	found := retainTrace(1, 1)
	found[n+6].Found, found[n+6].Digest, found[n+6].Offset = true, 0x5, 0
	restart := append(retainTrace(1, 1), modeltrace.Step{Kind: modeltrace.Restart, Broker: 1, Group: tgroup, Index: 1, Finalized: true,
		Entries: []modeltrace.Entry{{Term: 1}, {Term: 2}, {Term: 2, Digest: tproposal}, {Term: 2, Digest: 0xe2}}, CommitMark: 4, Applied: 4,
		Scopes: []modeltrace.ScopeNext{{Tenant: "acme", Next: 1, First: 0}}})
	checkRuleCases(t, []ruleCase{
		{"a read claiming the retention point below the step's", retainTrace(1, 0), n + 7, "", "first retained offset is 1 on broker 1 at applied index 4, not 0"},
		{"a retention step dropping past its offset", retainTrace(2, 2), n + 5, "", "the model drops from 0 to at most 1"},
		{"a read finding the key its one record wrote, dropped", found, n + 7, "NoPartialCommit", "it absent"},
		{"a restart that forgot the drop", restart, n + 8, "", "rebuilt with offsets 0..1 (first retained..next), but re-applying the log to index 4 gives 1..1"},
	})
	restart[len(restart)-1].Scopes[0].First = 1
	if res := validate(restart); !res.Valid {
		t.Errorf("a restart keeping the drop refused: %v", res.Rejection)
	}
}

// TestReadIndexCoversAnsweredWrites: a state read begun after a write was
// answered is served at a read index covering it: b2, which has not
// applied the write, serving a read begun after the answer at its own
// applied index is refused, and so is a read served at an index not yet
// applied, one never begun, one of another key than the one begun, and
// one begun by a leader that then stepped down. A read begun before the answer may miss the write (the two are
// concurrent).
func TestReadIndexCoversAnsweredWrites(t *testing.T) {
	g := goodTrace()
	staleRead := func(startAt int) []modeltrace.Step {
		out := insert(g, startAt, readStart(2, 8, 1, "k"))
		return insert(out, 15, modeltrace.Step{Kind: modeltrace.StateRead, Broker: 2, Group: tgroup, Client: 8, ReqID: 1, Tenant: "acme", Key: "k", Applied: 1, ReadIndex: 1})
	}
	if res := validate(staleRead(10)); !res.Valid {
		t.Fatalf("a read begun before the answer, served before b2 applied the write, refused: %v", res.Rejection)
	}
	unapplied := readTrace()
	unapplied[len(g)+1].ReadIndex = 4
	never := append(goodTrace(), readTrace()[len(g)+1])
	otherKey := readTrace()
	otherKey[len(g)].Key = "k2"
	stepDown := insert(readTrace(), len(g)+1, modeltrace.Step{Kind: modeltrace.Vote, Broker: 1, Group: tgroup, Term: 3, Candidate: 3})
	checkRuleCases(t, []ruleCase{
		{"a follower's read begun after the answer misses the write", staleRead(14), 16, "", "the read index 1 is below index 3, whose write was answered before the read began"},
		{"a read served at an index not applied", unapplied, len(g) + 2, "", "the read index 4 is not applied on broker 1"},
		{"a read never begun", never, len(g) + 1, "", "never began (no ReadStart)"},
		{"a read of another key than the one begun", otherKey, len(g) + 2, "", `began a read of key "k2" of scope "acme"`},
		{"a read whose leader stepped down", stepDown, len(g) + 3, "", "never began (no ReadStart)"},
	})
}

// TestIncarnationEmptiesScopes: an incarnation marker that moves the
// stream to a newer generation empties every scope at its log position:
// a read after it sees the scope retained from its next offset, its key
// absent; a read that still sees the old generation's value (a recreate
// that kept the state) is refused, and so is a restart that kept it.
func TestIncarnationEmptiesScopes(t *testing.T) {
	const marker = 0xe3
	w := modeltrace.Write{Kind: modeltrace.KindIncarnation, Generation: 2}
	steps := func(readFirst uint64, found bool) []modeltrace.Step {
		read := modeltrace.Step{Kind: modeltrace.StateRead, Broker: 1, Group: tgroup, Client: 8, ReqID: 1, Tenant: "acme", Key: "k", Applied: 4, ReadIndex: 4, First: readFirst}
		if found {
			read.Found, read.Digest, read.Offset = true, 0x5, 0
		}
		return append(goodTrace(),
			modeltrace.Step{Kind: modeltrace.Request, Broker: 1, Group: tgroup, Term: 2, Digest: marker, Asked: &w, Proposed: &w},
			modeltrace.Step{Kind: modeltrace.Persist, Broker: 1, Group: tgroup, Term: 2, Index: 4, Entries: []modeltrace.Entry{{Term: 2, Digest: marker}}},
			modeltrace.Step{Kind: modeltrace.Persist, Broker: 2, Group: tgroup, Term: 2, Index: 4, Entries: []modeltrace.Entry{{Term: 2, Digest: marker}}},
			modeltrace.Step{Kind: modeltrace.Commit, Broker: 1, Group: tgroup, Index: 4},
			modeltrace.Step{Kind: modeltrace.Apply, Broker: 1, Group: tgroup, Index: 4, Term: 2, Digest: marker},
			readStart(1, 8, 1, "k"),
			read,
		)
	}
	n := len(goodTrace())
	if res := validate(steps(1, false)); !res.Valid {
		t.Fatalf("a read of the emptied scope refused: %v", res.Rejection)
	}
	kept := append(steps(1, false), modeltrace.Step{Kind: modeltrace.Restart, Broker: 1, Group: tgroup, Index: 1, Finalized: true,
		Entries: []modeltrace.Entry{{Term: 1}, {Term: 2}, {Term: 2, Digest: tproposal}, {Term: 2, Digest: marker}}, CommitMark: 4, Applied: 4,
		Scopes: []modeltrace.ScopeNext{{Tenant: "acme", Next: 1}}})
	checkRuleCases(t, []ruleCase{
		{"a read that sees the old generation's state", steps(0, true), n + 7, "", "first retained offset is 1 on broker 1 at applied index 4, not 0"},
		{"a restart that kept the old generation's records", kept, n + 8, "", "re-applying the log to index 4 gives 1..1"},
	})
}
