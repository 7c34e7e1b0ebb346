package properties

import "testing"

// TestFailedOnlyWhenCertain: a write recorded failed after an
// InvalidRequest (or NotOnOwningShard) answer passes; one recorded failed
// when its last copy was refused NotLeader or Unavailable, or its answer
// was lost, fails; unknown outcomes and unrecorded requests are not judged.
func TestFailedOnlyWhenCertain(t *testing.T) {
	failed := func(answers ...HistoryAnswer) *History {
		r := rec("e0", put("order-1", "placed"))
		op := HistoryOp{ID: 1, Kind: HistoryCommit, Scope: testScope, Record: &r,
			InvokeNs: 1, CompleteNs: 2, Outcome: OutcomeFailed}
		for i, a := range answers {
			op.Requests = append(op.Requests, HistoryRequest{ID: uint64(i + 1), Broker: uint64(i + 1), Answer: a, Delivered: 1})
		}
		return &History{Ops: []HistoryOp{op}}
	}
	for _, certain := range [][]HistoryAnswer{{AnswerInvalidRequest}, {AnswerNotLeader, AnswerNotOnOwningShard}} {
		if n, err := HistoryFailedOnlyWhenCertain(failed(certain...)); err != nil || n != 1 {
			t.Fatalf("failed after %v: judged %d, %v", certain, n, err)
		}
	}
	for _, uncertain := range [][]HistoryAnswer{{AnswerNotLeader, AnswerNotLeader}, {AnswerUnavailable}, {AnswerNone}, {AnswerEphemeralStream}, {AnswerTimeout}} {
		_, err := HistoryFailedOnlyWhenCertain(failed(uncertain...))
		wantInvariant(t, "failed after "+answersOf(failed(uncertain...).Ops[0].Requests), err, InvariantFailedOnlyWhenCertain)
	}
	unknown := failed(AnswerNotLeader)
	unknown.Ops[0].Outcome = OutcomeUnknown
	unrecorded := failed()
	unrecorded.Ops[0].Requests = nil
	for _, h := range []*History{unknown, unrecorded} {
		if n, err := HistoryFailedOnlyWhenCertain(h); err != nil || n != 0 {
			t.Fatalf("not judged: judged %d, %v", n, err)
		}
	}
}
