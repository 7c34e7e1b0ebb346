package properties

import (
	"fmt"
	"strings"
)

// A client's certainty (docs/atomic-commit.md, "Commits are not
// idempotent"): a sent write failed — had no effect, certainly — only
// when the broker's refusal follows from the request alone, so that every
// copy and every re-send meets it: InvalidRequest and NotOnOwningShard.
// Every other answer (NotLeader once the redirects run out, Unavailable,
// UnknownStream, EphemeralStream, FeatureNotFinalized, Timeout, Internal),
// a lost answer and a timeout leave the outcome unknown: an earlier copy
// (one delivered twice, or sent before a NotLeader redirect) may have been
// proposed while a broker still led. FailedWriteLeftNoTrace compares a
// failed write with what its copies did when one of them landed; this
// check compares what the client believed with what it was told, so a
// client that reads its last copy's refusal as the call's failure is
// caught whether or not an earlier copy happened to land.

// RefusesEveryCopy reports whether the answer is a refusal that follows
// from the request alone, so every copy and re-send of it meets it
// (InvalidRequest, NotOnOwningShard: the table of error codes in
// docs/atomic-commit.md), stated here apart from the client that relies
// on it.
func (a HistoryAnswer) RefusesEveryCopy() bool {
	return a == AnswerInvalidRequest || a == AnswerNotOnOwningShard
}

// HistoryFailedOnlyWhenCertain checks FailedOnlyWhenCertain: every sent
// write (or live publish) recorded failed has a request answered with a
// refusal every copy meets. Writes whose requests the history did not
// record are not judged; it returns how many it judged.
func HistoryFailedOnlyWhenCertain(h *History) (int, error) {
	v := violations{what: InvariantFailedOnlyWhenCertain}
	judged := 0
	for i := range h.Ops {
		op := &h.Ops[i]
		if !op.Kind.CarriesRecord() || op.NotSent || op.Outcome != OutcomeFailed || op.Requests == nil {
			continue
		}
		judged++
		v.at = op.ID
		certain := false
		for _, q := range op.Requests {
			certain = certain || q.Answer.RefusesEveryCopy()
		}
		if !certain {
			v.add("op %d (%s by client %d on %s) was recorded failed, but its requests were answered %s: none is a refusal every copy meets, so a copy may have landed and the outcome is unknown",
				op.ID, op.Kind, op.Client, op.Scope, answersOf(op.Requests))
		}
	}
	return judged, v.err()
}

// answersOf renders requests' answers as "request 7 NotLeader by broker 2, ...".
func answersOf(qs []HistoryRequest) string {
	parts := make([]string, len(qs))
	for i, q := range qs {
		parts[i] = fmt.Sprintf("request %d %s by broker %d", q.ID, q.Answer, q.Broker)
	}
	return strings.Join(parts, ", ")
}
