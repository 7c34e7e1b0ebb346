package tla

import (
	"bytes"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/modeltrace"
)

// FuzzValidateTrace: any trace file the strict reader accepts is judged
// without a panic: valid, or rejected at a step of the trace with a
// reason, as a violation of TraceNotInModel or of one of the model's
// invariants TLC checks on the trace. The seeds are goodTrace with reads
// and every broken trace of the rule tests.
func FuzzValidateTrace(f *testing.F) {
	add := func(steps []modeltrace.Step) {
		var b bytes.Buffer
		n := modeltrace.NewNDJSON(&b)
		modeltrace.Replay(steps, n)
		if err := n.Flush(); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	add(readTrace())
	add(replaceTrace())
	add(staleSuffixTrace([]modeltrace.Entry{{Term: 1}, {Term: 3}, {Term: 2, Digest: tproposal}}))
	vote3 := modeltrace.Step{Kind: modeltrace.Vote, Broker: 1, Group: tgroup, Term: 3, Candidate: 3}
	add(insert(readTrace(), 5, vote3))
	add(insert(goodTrace(), 14, modeltrace.Step{Kind: modeltrace.Snapshot, Broker: 2, Group: tgroup, Index: 2, Term: 2}))
	f.Fuzz(func(t *testing.T, b []byte) {
		steps, err := modeltrace.ReadNDJSON(bytes.NewReader(b))
		if err != nil {
			return
		}
		res := ValidateTrace(steps, 3)
		if res.Valid {
			if res.Rejection != nil || res.Steps != len(steps) {
				t.Fatalf("valid, but %+v", res)
			}
			return
		}
		r := res.Rejection
		if r == nil || r.Step < 1 || r.Step > len(steps) || r.Reason == "" {
			t.Fatalf("rejected as %+v", r)
		}
		if v := r.Violated(); v != TraceNotInModel && !containsName(TraceInvariants, string(v)) {
			t.Fatalf("rejected as %s, neither TraceNotInModel nor a trace invariant", v)
		}
		if !strings.HasPrefix(r.Error(), string(r.Violated())+":") {
			t.Fatalf("rejection %q does not name %s", r.Error(), r.Violated())
		}
	})
}

func containsName[T ~string](names []T, s string) bool {
	for _, n := range names {
		if string(n) == s {
			return true
		}
	}
	return false
}
