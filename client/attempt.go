package client

import (
	"fmt"

	"github.com/felixsim/felixsim/wire"
)

// Attempt is one request a call sent (the first, or a re-send after a
// NotLeader answer under a new request id): its id, the broker it went
// to and the answer the call took from that broker.
type Attempt struct {
	RequestID uint64
	Broker    NodeID
	// Answer is the kind of the answer the call took for this request;
	// wire.AnswerInvalid (zero) while none has: the answer was lost, is
	// late, or the call timed out waiting for it.
	Answer wire.AnswerKind
	// Code is the broker's error code when Answer is wire.AnswerError.
	Code wire.ErrorCode
	// Malformed marks an answer that failed wire validation: its kind is
	// what it claimed, and nothing else of it is trusted.
	Malformed bool
}

// answered notes the answer the call took for its current request.
func (cl *call) answered(body wire.AnswerBody, malformed bool) {
	at := &cl.attempts[len(cl.attempts)-1]
	if at.RequestID != cl.req.ID || at.Answer != wire.AnswerInvalid {
		panic(fmt.Sprintf("client: answer for request %d taken by attempt %+v", cl.req.ID, *at))
	}
	at.Answer, at.Malformed = body.Kind(), malformed
	if e, ok := body.(*wire.Error); ok && !malformed {
		at.Code = e.Code
	}
}

// AnswerName names the answer the call took for the request as the wire
// spells it: "none" while none has, "mismatch" for a malformed answer,
// the error code's name for an error (e.g. "NotLeader"), else the answer
// kind's name (e.g. "written").
func (a Attempt) AnswerName() string {
	switch {
	case a.Answer == wire.AnswerInvalid:
		return "none"
	case a.Malformed:
		return "mismatch"
	case a.Answer == wire.AnswerError:
		return a.Code.String()
	}
	return a.Answer.String()
}
