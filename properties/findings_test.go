package properties

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
)

// partsScopes are three scopes of one stream, ascending.
var partsScopes = []felix.Scope{
	{Tenant: "acme", Namespace: "orders", Stream: "s", Shard: 0},
	{Tenant: "acme", Namespace: "orders", Stream: "s", Shard: 1},
	{Tenant: "globex", Namespace: "orders", Stream: "s", Shard: 0},
}

// brokenParts is a history over partsScopes, its operations interleaved
// across the scopes by id, and three replicas of their logs, broken so
// that most history checks find something in every scope: each replica
// holds other records at offsets 1 and 3 (acknowledged there), state_get
// answers of wrong values and versions going back, a refusal that names
// its expected offset, a write acknowledged at offset 0 after the others,
// and a write that was never sent yet sits in the log.
func brokenParts() (*History, []ReplicaLog) {
	h := &History{}
	add := func(op HistoryOp) {
		op.ID = uint64(len(h.Ops) + 1)
		h.Ops = append(h.Ops, op)
	}
	reps := make([]ReplicaLog, 3)
	for r := range reps {
		reps[r].Node = uint64(r + 1)
	}
	for i := 0; i < 4; i++ {
		for _, s := range partsScopes {
			r := rec(fmt.Sprintf("%s/e%d", s, i), put("k", fmt.Sprintf("v%d", i)))
			add(HistoryOp{Kind: HistoryCommit, Scope: s, EntityKey: fmt.Sprintf("key-%d", i), Record: &r,
				InvokeNs: int64(100*i + 1), CompleteNs: int64(100*i + 50), Outcome: OutcomeOK, Offset: uint64(i)})
		}
	}
	for _, s := range partsScopes {
		add(HistoryOp{Kind: HistoryStateGet, Scope: s, Key: "k", InvokeNs: 500, CompleteNs: 510, Outcome: OutcomeOK, Found: true, Value: []byte("v3"), Version: 3})
		add(HistoryOp{Kind: HistoryStateGet, Scope: s, Key: "k", InvokeNs: 520, CompleteNs: 530, Outcome: OutcomeOK, Found: true, Value: []byte("v0"), Version: 2})
		refused := cond(rec(fmt.Sprintf("%s/refused", s)), 9)
		add(HistoryOp{Kind: HistoryCommitIf, Scope: s, Record: refused, InvokeNs: 540, CompleteNs: 550, Outcome: OutcomeRefused, Tail: 9})
		late := rec(fmt.Sprintf("%s/late", s))
		add(HistoryOp{Kind: HistoryCommit, Scope: s, Record: &late, InvokeNs: 600, CompleteNs: 610, Outcome: OutcomeOK, Offset: 0})
		lost := rec(fmt.Sprintf("%s/e2", s), put("k", "v2"))
		add(HistoryOp{Kind: HistoryCommit, Scope: s, Record: &lost, InvokeNs: 560, CompleteNs: 560, Outcome: OutcomeFailed, NotSent: true, Error: "refused"})
	}
	for r := range reps {
		for _, s := range partsScopes {
			v := ReplicaView{Name: fmt.Sprintf("broker-%d", r+1), Scope: s, NextOffset: 4}
			for i := 0; i < 4; i++ {
				payload := fmt.Sprintf("%s/e%d", s, i)
				if i%2 == 1 {
					payload = fmt.Sprintf("%s/other%d", s, i)
				}
				rr := rec(payload, put("k", fmt.Sprintf("v%d", i)))
				v.Log = append(v.Log, ViewEntryOf(uint64(i), &rr))
			}
			reps[r].Scopes = append(reps[r].Scopes, v)
		}
	}
	return h, reps
}

// partOf is h and replicas restricted to scope s, as a history judged in
// parts gives each part.
func partOf(h *History, replicas []ReplicaLog, s felix.Scope) (*History, []ReplicaLog) {
	ph := &History{}
	for _, op := range h.Ops {
		if op.Scope == s {
			ph.Ops = append(ph.Ops, op)
		}
	}
	var pr []ReplicaLog
	for _, r := range replicas {
		p := ReplicaLog{Node: r.Node}
		if v := r.Scope(s); v != nil {
			p.Scopes = []ReplicaView{*v}
		}
		pr = append(pr, p)
	}
	return ph, pr
}

// TestFindingsMergeAsWhole: every check the end checks judge scope by
// scope returns, merged from its parts (MergeFindings, the parts in scope
// order), the very error it returns over the whole history: the same text
// (the same first findings listed, in the same order), the same findings
// kept and the same count; both for checks that list every finding and
// for those that stop at their first.
func TestFindingsMergeAsWhole(t *testing.T) {
	h, reps := brokenParts()
	ref := LongestLogs(reps)
	shards := func(string, string) (uint32, bool) { return 2, true }
	checks := map[string]func(*History, []ReplicaLog, *ReplicaLog) error{
		"acked":     func(h *History, rs []ReplicaLog, _ *ReplicaLog) error { return HistoryAckedOnEveryReplica(h, rs) },
		"notsent":   func(h *History, rs []ReplicaLog, _ *ReplicaLog) error { return HistoryNotSentWroteNothing(h, rs) },
		"cond":      func(h *History, _ []ReplicaLog, ref *ReplicaLog) error { return HistoryConditionalWrites(h, ref) },
		"reads":     func(h *History, _ []ReplicaLog, ref *ReplicaLog) error { return HistoryReadsLinearizable(h, ref) },
		"monotonic": func(h *History, _ []ReplicaLog, _ *ReplicaLog) error { return HistoryReadsMonotonic(h) },
		"order":     func(h *History, _ []ReplicaLog, ref *ReplicaLog) error { return HistoryWritesRespectRealTime(h, ref) },
		"version":   func(h *History, _ []ReplicaLog, ref *ReplicaLog) error { return HistoryReadVersionIsOffset(h, ref) },
		"route": func(h *History, rs []ReplicaLog, _ *ReplicaLog) error {
			return HistoryWritesOnOwningShard(h, rs, shards)
		},
	}
	names := make([]string, 0, len(checks))
	for n := range checks {
		names = append(names, n)
	}
	slices.Sort(names)
	listedMore := 0
	for _, name := range names {
		check := checks[name]
		whole := check(h, reps, &ref)
		var parts []error
		found := 0
		for _, s := range partsScopes {
			ph, pr := partOf(h, reps, s)
			pref := LongestLogs(pr)
			e := check(ph, pr, &pref)
			if e != nil {
				found++
			}
			parts = append(parts, e)
		}
		if whole == nil || found < 2 {
			t.Fatalf("%s: whole %v, %d parts with findings: the merge would not be tested", name, whole, found)
		}
		merged := MergeFindings(parts)
		wt, wn := FindingsOf(whole)
		mt, mn := FindingsOf(merged)
		if merged.Error() != whole.Error() || wn != mn || !slices.Equal(wt, mt) {
			t.Fatalf("%s: merged from parts:\n%v\n(%d findings) whole:\n%v\n(%d findings)", name, merged, mn, whole, wn)
		}
		if strings.Contains(whole.Error(), "more") {
			listedMore++
		}
	}
	if listedMore == 0 {
		t.Fatal("no check listed more findings than it shows: the order of the listed ones is untested")
	}
}

// TestMergeFindingsRefusesUnkeyed: errors that are not findings with an
// order key cannot be merged (a check not written to be judged in parts):
// a programmer error, which panics; one such error alone passes through.
func TestMergeFindingsRefusesUnkeyed(t *testing.T) {
	plain := fmt.Errorf("plain")
	if MergeFindings([]error{nil, plain, nil}) != plain || MergeFindings([]error{nil, nil}) != nil {
		t.Fatal("one error (or none) must pass through as it is")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("two plain errors merged without a panic")
		}
	}()
	MergeFindings([]error{plain, fmt.Errorf("other")})
}

// TestMergeFindingsFirstByKey: of several first findings the least key
// wins, the earlier part on a tie.
func TestMergeFindingsFirstByKey(t *testing.T) {
	a, b, c := firstAt(7, fmt.Errorf("a")), firstAt(3, fmt.Errorf("b")), firstAt(3, fmt.Errorf("c"))
	if got := MergeFindings([]error{a, nil, b, c}); got.Error() != "b" {
		t.Fatalf("merged first finding %v, want b (least key, earlier part)", got)
	}
}

// TestReportsAddAsWhole: the linearizability report and the keys lost,
// added up from the parts in scope order, are what the whole history
// gives: the same scopes, verdicts, steps and details, the same counts
// and first key.
func TestReportsAddAsWhole(t *testing.T) {
	h, reps := brokenParts()
	ref := LongestLogs(reps)
	whole := HistoryLinearizable(h, &ref, 0)
	wholeKeys := HistoryKeysLost(h, &ref)
	var parts LinearizableReport
	var keys KeysLost
	for _, s := range partsScopes {
		ph, pr := partOf(h, reps, s)
		pref := LongestLogs(pr)
		parts.Add(HistoryLinearizableAt(ph, &pref, 0, latestNsOf(h)))
		keys.Add(HistoryKeysLost(ph, &pref))
	}
	if whole.Illegal < 2 || wholeKeys.Other < 2 {
		t.Fatalf("%d illegal scopes, %d keys lost: the sums would not be tested", whole.Illegal, wholeKeys.Other)
	}
	if fmt.Sprint(parts) != fmt.Sprint(whole) || fmt.Sprint(parts.Err()) != fmt.Sprint(whole.Err()) {
		t.Fatalf("linearizability from parts:\n%+v\nwhole:\n%+v", parts, whole)
	}
	if keys != wholeKeys || fmt.Sprint(keys.Err()) != fmt.Sprint(wholeKeys.Err()) {
		t.Fatalf("keys lost from parts %+v, whole %+v", keys, wholeKeys)
	}
}
