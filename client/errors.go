package client

import (
	"errors"
	"fmt"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/wire"
)

// Sentinels for errors.Is. Every refusal before sending wraps ErrNotSent;
// every failure after sending is a *CallError.
var (
	// ErrNotSent marks a call refused by validation or by a full pending
	// table: nothing reached the Transport.
	ErrNotSent = errors.New("call refused before sending")
	// ErrUnknownOutcome marks a write that may or may not have been applied:
	// its answer never came, or the broker could not say.
	ErrUnknownOutcome = errors.New("outcome unknown")
	// ErrTimeout marks a call that Tick failed because its deadline passed.
	ErrTimeout = errors.New("call timed out")
	// ErrBeforeWindow marks a subscribe read from before the retained window.
	ErrBeforeWindow = errors.New("read before the retained window")
	// ErrNotLeader marks a call that ended on a NotLeader answer.
	ErrNotLeader = errors.New("broker is not the shard's leader")
	// ErrProtocol marks an answer that does not fit the request.
	ErrProtocol = errors.New("broker answer does not fit the request")
)

// CommitErrorCode says why a write was refused before sending.
type CommitErrorCode uint8

// Commit error codes. The zero value is invalid.
const (
	CommitErrorInvalid CommitErrorCode = iota
	// NotOnOwningShard: the operations name more than one stream, so no single
	// shard's log could hold the commit.
	NotOnOwningShard
	// NoEvent: the commit carries no publish or enqueue.
	NoEvent
	// ManyEvents: the commit carries more than one publish or enqueue.
	ManyEvents
	// InvalidOperation: an operation is malformed (empty key, oversize value,
	// zero CommitOp) or the record breaks a size limit.
	InvalidOperation
	// UnknownStream: the topology has no shard count for the stream.
	UnknownStream
	// InvalidScope: the tenant, namespace or stream name is empty or too long.
	InvalidScope
)

// String names the commit error code.
func (c CommitErrorCode) String() string {
	switch c {
	case NotOnOwningShard:
		return "NotOnOwningShard"
	case NoEvent:
		return "NoEvent"
	case ManyEvents:
		return "ManyEvents"
	case InvalidOperation:
		return "InvalidOperation"
	case UnknownStream:
		return "UnknownStream"
	case InvalidScope:
		return "InvalidScope"
	}
	return fmt.Sprintf("CommitErrorCode(%d)", uint8(c))
}

// CommitError is a write (commit, commit_if, publish, publish_if, enqueue)
// refused by validation before anything was sent.
type CommitError struct {
	Code   CommitErrorCode
	Detail string
}

// Error names the code and what was refused.
func (e *CommitError) Error() string { return "commit refused: " + e.Code.String() + ": " + e.Detail }

// Unwrap lets errors.Is find ErrNotSent.
func (e *CommitError) Unwrap() error { return ErrNotSent }

func commitErr(code CommitErrorCode, format string, args ...any) error {
	return &CommitError{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// ArgumentError is a read or consumer-group call refused by validation
// before anything was sent.
type ArgumentError struct {
	Op     wire.RequestKind
	Detail string
}

// Error names the call and what was refused.
func (e *ArgumentError) Error() string { return e.Op.String() + " refused: " + e.Detail }

// Unwrap lets errors.Is find ErrNotSent.
func (e *ArgumentError) Unwrap() error { return ErrNotSent }

// CallError is a call that was sent and did not succeed.
type CallError struct {
	Op    wire.RequestKind
	Scope felix.Scope
	// Node is the broker the last attempt went to.
	Node NodeID
	// Broker is the broker's error answer, nil when none came (timeout) or
	// the answer did not fit the request.
	Broker *wire.Error
	// Unknown is true when a write may or may not have been applied: no
	// answer came, or the broker's answer does not rule out that a copy of
	// the request (a network duplicate, an attempt before a redirect) was
	// applied (see wire.ErrorCode.RefusedForEveryCopy).
	Unknown bool
	// CopyRefused is true when the broker refused the copy of a write this
	// answer is for before proposing it (wire.ErrorCode.WriteNotApplied):
	// the outcome may still be unknown, but this broker did not say
	// "maybe" and there is no lost answer to wait for.
	CopyRefused bool
	// Cause is ErrTimeout, ErrProtocol, ErrNotLeader, ErrBeforeWindow or nil.
	Cause  error
	Detail string
}

// Error says which call failed, where, and whether its outcome is known.
func (e *CallError) Error() string {
	s := fmt.Sprintf("%s on %s via node %d failed", e.Op, e.Scope, e.Node)
	if e.Broker != nil {
		s += ": " + e.Broker.Error()
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Unknown {
		s += " (outcome unknown: the write may have been applied)"
	}
	return s
}

// Unwrap exposes ErrUnknownOutcome and the cause to errors.Is.
func (e *CallError) Unwrap() []error {
	var out []error
	if e.Unknown {
		out = append(out, ErrUnknownOutcome)
	}
	if e.Cause != nil {
		out = append(out, e.Cause)
	}
	return out
}
