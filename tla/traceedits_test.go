package tla

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/modeltrace"
	"github.com/felixsim/felixsim/properties"
)

var basesFrom = flag.String("trace-bases-from", "", "with -rewrite-traces: write the base traces again from DIR/seed58.ndjson and DIR/seed133.ndjson, the whole exports of the runs editBase and editBaseRetain name")

var rewriteTraces = flag.Bool("rewrite-traces", false, "write testdata/traces' base trace (its steps unchanged) and its hand-edited copies again, in the current format, from the base trace and the edits of TestEditedRealTracesRejected")

// The edits' bases are raft groups of real runs' traces (GroupTrace,
// valid). editBase: `felixsim run --seed 58 --duration 3s --faults
// partition,oneway,isolate,kill,pause --fault-gap 300ms --trace-out F`,
// group 5 (377 steps): its third broker voted for itself in term 1 and got
// broker 2's vote there, but no one led term 1 (the grants came too
// late); a partition then left it behind until it voted for broker 2 in
// term 3 and caught up. editBaseRetain: `felixsim run --seed 133
// --duration 3s --faults partition,oneway,isolate,kill,pause,retain
// --fault-gap 300ms --trace-out F`, group 3 (935 steps): retention steps
// drop records, followers lag behind answered writes, and a follower
// applies an entry before its leader. Both are written again from such
// runs' exports by -rewrite-traces -trace-bases-from DIR.
const (
	editBase       = "testdata/traces/seed58-group5.ndjson"
	editBaseRetain = "testdata/traces/seed133-group3.ndjson"
)

// traceEdit is one rule's hand-edited copy of a base trace: a step changed
// (edit returns the trace and the changed step's number, from 1; an edit
// of two steps names the later), which the validator must reject at that
// very step, as TLC must (tla/README.md lists the TLC runs).
type traceEdit struct {
	file string
	base string
	edit func(t *testing.T, base []modeltrace.Step) ([]modeltrace.Step, int)
	// invariant is the model's invariant the edited step's state breaks
	// ("": no action explains the step, TraceNotInModel).
	invariant properties.InvariantName
	cause     string
}

var traceEdits = []traceEdit{
	{"promote-after-newer-vote.ndjson", editBase, editPromoteAfterNewerVote, "", "after voting in the newer term"},
	{"request-in-older-term.ndjson", editBase, editRequestInOlderTerm, "", "after voting in the newer term"},
	{"follower-applies-as-error.ndjson", editBase, editFollowerAppliesAsError, "", "replicas apply a committed entry alike"},
	{"state-read-another-value.ndjson", editBase, editStateReadValue, properties.InvariantNoPartialCommit, "records it applied"},
	{"state-read-unwritten-version.ndjson", editBase, editStateReadVersion, properties.InvariantVersionIsOffset, "put that value on the key"},
	{"subscriber-read-another-record.ndjson", editBase, editSubscriberRecord, properties.InvariantNoPartialCommit, "the record written there"},
	{"acked-write-left-on-one-broker.ndjson", editBaseRetain, editAckedOnOneBroker, properties.InvariantCommittedNeverLost, "a quorum of no configuration"},
	{"follower-takes-deposed-entries.ndjson", editBaseRetain, editFollowerTakesDeposedEntries, "", "an append of an older term is refused"},
	{"state-read-retention-lowered.ndjson", editBaseRetain, editRetentionPointLowered, "", "retention drops at log positions"},
	{"follower-reads-stale.ndjson", editBaseRetain, editFollowerReadsStale, "", "whose write was answered before the read began"},
	{"commit-applied-as-error.ndjson", editBaseRetain, editCommitAppliedAsError, "", "so the model gives written at"},
	{"follower-errs-first.ndjson", editBaseRetain, editFollowerErrsFirst, "", "so the model gives written at"},
}

// TestEditedRealTracesRejected: each base is valid; each edited copy (in
// testdata/traces, regenerated with -rewrite-traces) is what its edit
// makes of its base, and is rejected at the edited step, for its reason.
func TestEditedRealTracesRejected(t *testing.T) {
	if *rewriteTraces && *basesFrom != "" {
		regenerateBases(t, *basesFrom)
	}
	bases := map[string][]modeltrace.Step{}
	for _, path := range []string{editBase, editBaseRetain} {
		base := readTraceSteps(t, path)
		if res := ValidateTrace(base, 3); !res.Valid || res.Steps != len(base) {
			t.Fatalf("%s: %+v %v", path, res, res.Rejection)
		}
		if *rewriteTraces {
			writeTraceFile(t, path, base)
		}
		bases[path] = base
	}
	for _, e := range traceEdits {
		base := bases[e.base]
		steps, at := e.edit(t, cloneSteps(base))
		path := filepath.Join("testdata", "traces", e.file)
		if *rewriteTraces {
			writeTraceFile(t, path, steps)
		}
		if got := readTraceFile(t, path); !sameSteps(got, steps) {
			t.Errorf("%s is not what its edit makes of %s (run go test ./tla -run EditedRealTraces -rewrite-traces)", path, e.base)
			continue
		}
		res := ValidateTrace(steps, 3)
		want := e.invariant
		if want == "" {
			want = TraceNotInModel
		}
		r := res.Rejection
		if r == nil || r.Step != at || r.Invariant != e.invariant || !strings.Contains(r.Reason, e.cause) {
			t.Errorf("%s (step %d edited: %s): rejection %v; want %s at step %d because %q", e.file, at, steps[at-1].String(), r, want, at, e.cause)
			continue
		}
		t.Logf("%s: step %d (%s) rejected: %s", e.file, at, steps[at-1].String(), r.Reason)
	}
}

// readTraceFile reads a whole trace file of the current format (what
// make tlc-trace needs to give a verdict).
func readTraceFile(t *testing.T, path string) []modeltrace.Step {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := modeltrace.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Incomplete != "" || tr.Version != len(modeltrace.FormatVersions) {
		t.Fatalf("%s: format version %d, %s (regenerate it: go test ./tla -run EditedRealTraces -rewrite-traces)", path, tr.Version, tr.Incomplete)
	}
	return tr.Steps
}

// writeTraceFile writes steps as a whole trace of a 3-broker cluster.
func writeTraceFile(t *testing.T, path string, steps []modeltrace.Step) {
	t.Helper()
	var b bytes.Buffer
	n := modeltrace.NewNDJSON(&b)
	n.WriteHeader(modeltrace.Header{Brokers: 3})
	modeltrace.Replay(steps, n)
	if err := n.End(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func cloneSteps(steps []modeltrace.Step) []modeltrace.Step {
	out := make([]modeltrace.Step, len(steps))
	for i := range steps {
		out[i] = steps[i].Clone()
	}
	return out
}

func sameSteps(a, b []modeltrace.Step) bool {
	return slices.EqualFunc(a, b, func(x, y modeltrace.Step) bool { return x.String() == y.String() && stepJSON(x) == stepJSON(y) })
}

func stepJSON(s modeltrace.Step) string {
	var b bytes.Buffer
	n := modeltrace.NewNDJSON(&b)
	n.Step(&s)
	_ = n.Flush()
	return b.String()
}

// firstWhere replays base through a validator and returns the number
// (from 1) of the first step for which pick, shown the state before it,
// returns true; the test fails if none does.
func firstWhere(t *testing.T, base []modeltrace.Step, pick func(v *TraceValidator, g *traceGroup, s *modeltrace.Step) bool) int {
	t.Helper()
	v := NewTraceValidator(3)
	for j := range base {
		s := &base[j]
		if g := v.groups[s.Group]; g != nil && s.Kind != modeltrace.Answer && pick(v, g, s) {
			return j + 1
		}
		v.Step(s)
	}
	t.Fatal("the base trace holds no step the edit can change")
	return 0
}

// editPromoteAfterNewerVote: a step of a broker that voted for itself in
// an older term, got a quorum of votes there (up to date when cast) and
// no one led that term, but has since voted in a newer term, becomes its
// promotion in the older term: every other rule of Promote holds.
func editPromoteAfterNewerVote(t *testing.T, base []modeltrace.Step) ([]modeltrace.Step, int) {
	var term uint64
	at := firstWhere(t, base, func(v *TraceValidator, g *traceGroup, s *modeltrace.Step) bool {
		br := g.broker(s.Broker)
		if !br.up || s.Kind == modeltrace.Restart {
			return false
		}
		var terms []uint64
		for k, r := range g.votes { //det:ok sorted below
			if k.index == s.Broker && r.candidate == s.Broker && k.term < br.term {
				terms = append(terms, k.term)
			}
		}
		sort.Slice(terms, func(i, j int) bool { return terms[i] < terms[j] })
		lt := lastTermOf(br.log)
		for _, tm := range terms {
			if _, led := g.leaders[tm]; led {
				continue
			}
			if _, ok := br.conf.quorum(func(q uint64) bool {
				r, ok := g.votes[entryKey{tm, q}]
				return ok && r.candidate == s.Broker && (lt > r.lastTerm || (lt == r.lastTerm && uint64(len(br.log)) >= r.length))
			}); ok {
				term = tm
				return true
			}
		}
		return false
	})
	s := &base[at-1]
	base[at-1] = modeltrace.Step{Kind: modeltrace.Promote, Broker: s.Broker, Group: s.Group, Term: term}
	return base, at
}

// editRequestInOlderTerm: the first request of a broker that voted in a
// term past 1 names the term before the one it voted in.
func editRequestInOlderTerm(t *testing.T, base []modeltrace.Step) ([]modeltrace.Step, int) {
	at := firstWhere(t, base, func(v *TraceValidator, g *traceGroup, s *modeltrace.Step) bool {
		return s.Kind == modeltrace.Request && g.broker(s.Broker).term >= 2
	})
	v := NewTraceValidator(3)
	modeltrace.Replay(base[:at-1], v)
	base[at-1].Term = v.groups[base[at-1].Group].broker(base[at-1].Broker).term - 1
	return base, at
}

// editFollowerAppliesAsError: the first apply of a written record by a
// broker that is not the first to apply that index becomes a refusal with
// an error (nothing written), as if its state refused what the leader's
// accepted.
func editFollowerAppliesAsError(t *testing.T, base []modeltrace.Step) ([]modeltrace.Step, int) {
	at := firstWhere(t, base, func(v *TraceValidator, g *traceGroup, s *modeltrace.Step) bool {
		return s.Kind == modeltrace.Apply && s.Outcome == modeltrace.OutcomeWritten && s.Index < uint64(len(g.outcomes)) && g.outcomes[s.Index].set
	})
	base[at-1].Outcome, base[at-1].Offset = modeltrace.OutcomeError, 0
	return base, at
}

// firstFoundRead is the number of the first state read that found a value.
func firstFoundRead(t *testing.T, base []modeltrace.Step) int {
	return firstWhere(t, base, func(v *TraceValidator, g *traceGroup, s *modeltrace.Step) bool {
		return s.Kind == modeltrace.StateRead && s.Found
	})
}

// editStateReadValue: the first state read that found a value sees
// another value (as a read of a half-applied commit would).
func editStateReadValue(t *testing.T, base []modeltrace.Step) ([]modeltrace.Step, int) {
	at := firstFoundRead(t, base)
	base[at-1].Digest ^= 0xff
	return base, at
}

// editStateReadVersion: the first state read that found a value reports
// as its version the scope's next offset on that broker, an offset no
// record it applied holds.
func editStateReadVersion(t *testing.T, base []modeltrace.Step) ([]modeltrace.Step, int) {
	at := firstFoundRead(t, base)
	v := NewTraceValidator(3)
	modeltrace.Replay(base[:at-1], v)
	s := &base[at-1]
	g := v.groups[s.Group]
	s.Offset = g.broker(s.Broker).nextIn(g.scopeIDs[s.Tenant])
	return base, at
}

// editSubscriberRecord: the first subscriber read gets, as its first
// record, another record than the one written at that offset.
func editSubscriberRecord(t *testing.T, base []modeltrace.Step) ([]modeltrace.Step, int) {
	at := firstWhere(t, base, func(v *TraceValidator, g *traceGroup, s *modeltrace.Step) bool {
		return s.Kind == modeltrace.SubscriberRead
	})
	base[at-1].Records[0] ^= 0xff
	return base, at
}

// editAckedOnOneBroker: the first step of a broker f that, with one other,
// is the bare quorum holding an acknowledged write past f's commit mark
// becomes f's install of a leader's snapshot at the index after its mark
// (committed, so the action takes it): f's log is cut to the committed
// prefix there, and the acknowledged write is left on one broker.
func editAckedOnOneBroker(t *testing.T, base []modeltrace.Step) ([]modeltrace.Step, int) {
	var x uint64
	var scopes []modeltrace.ScopeNext
	at := firstWhere(t, base, func(v *TraceValidator, g *traceGroup, s *modeltrace.Step) bool {
		f := g.broker(s.Broker)
		if !f.up || s.Kind == modeltrace.Restart || f.commit+1 > uint64(len(g.committed)) {
			return false
		}
		x = f.commit + 1
		for _, a := range g.acked {
			if a.index <= x || uint64(len(f.log)) < a.index || f.log[a.index-1] != a.entry {
				continue
			}
			holders := 0
			for _, br := range g.brokers {
				if br != nil && uint64(len(br.log)) >= a.index && br.log[a.index-1] == a.entry {
					holders++
				}
			}
			if holders == 2 {
				scopes = rebuiltScopes(g, x)
				return true
			}
		}
		return false
	})
	s := &base[at-1]
	v := NewTraceValidator(3)
	modeltrace.Replay(base[:at-1], v)
	base[at-1] = modeltrace.Step{Kind: modeltrace.Snapshot, Broker: s.Broker, Group: s.Group, Index: x, Term: v.groups[s.Group].committed[x-1].Term, Scopes: scopes}
	return base, at
}

// rebuiltScopes lists the scopes with records up to index x and their
// next offsets there, sorted by tenant (a Snapshot's Scopes).
func rebuiltScopes(g *traceGroup, x uint64) []modeltrace.ScopeNext {
	var out []modeltrace.ScopeNext
	for tenant, id := range g.scopeIDs { //det:ok sorted below
		n := uint64(0)
		for _, idx := range g.writtenIn(id) {
			if idx <= x {
				n++
			}
		}
		if n > 0 {
			out = append(out, modeltrace.ScopeNext{Tenant: tenant, Next: n})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tenant < out[j].Tenant })
	return out
}

// readTraceSteps reads a trace file's steps, whole or not (the base trace
// before -rewrite-traces put it in the current format).
func readTraceSteps(t *testing.T, path string) []modeltrace.Step {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := modeltrace.ReadNDJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return steps
}

// regenerateBases writes editBase and editBaseRetain from the whole
// exports dir/seed58.ndjson (group 5) and dir/seed133.ndjson (group 3).
func regenerateBases(t *testing.T, dir string) {
	for _, b := range []struct {
		from, to string
		group    uint64
	}{{"seed58.ndjson", editBase, 5}, {"seed133.ndjson", editBaseRetain, 3}} {
		writeTraceFile(t, b.to, GroupTrace(readTraceFile(t, filepath.Join(dir, b.from)), b.group))
	}
}
