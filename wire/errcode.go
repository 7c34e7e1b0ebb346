package wire

import "fmt"

// ErrorCode says why a broker refused or failed a request.
type ErrorCode uint8

// Error codes, as written on the wire. The zero value is invalid.
const (
	CodeInvalid ErrorCode = iota
	// CodeNotLeader: this broker does not lead the shard; Error.LeaderHint
	// names the node it believes does (0 = unknown).
	CodeNotLeader
	// CodeNotOnOwningShard: the request names a shard this stream does not
	// route it to, or spans more than one stream.
	CodeNotOnOwningShard
	// CodeEphemeralStream: the stream is ephemeral and has no log to hold a commit.
	CodeEphemeralStream
	// CodeFeatureNotFinalized: commit records are refused until the
	// atomic_commit fleet feature is finalized.
	CodeFeatureNotFinalized
	// CodeBeforeWindow: the read starts before the retained window;
	// Error.WindowStart is the first offset still readable.
	CodeBeforeWindow
	// CodeInvalidRequest: the request is malformed or out of limits.
	CodeInvalidRequest
	// CodeUnknownStream: the broker knows no such tenant/namespace/stream/shard.
	CodeUnknownStream
	// CodeUnavailable: the shard cannot serve now (no quorum, shutting down);
	// for a write, nothing was proposed.
	CodeUnavailable
	// CodeTimeout: the broker gave up waiting; a write's outcome is unknown.
	CodeTimeout
	// CodeInternal: a broker bug; the outcome of a write is unknown.
	CodeInternal
	// CodeAdminRefused: the metadata group refused an operator request
	// (e.g. a finalize while a broker runs an older version); the message
	// says why.
	CodeAdminRefused
	errorCodeEnd
)

// String names the error code.
func (c ErrorCode) String() string {
	switch c {
	case CodeNotLeader:
		return "NotLeader"
	case CodeNotOnOwningShard:
		return "NotOnOwningShard"
	case CodeEphemeralStream:
		return "EphemeralStream"
	case CodeFeatureNotFinalized:
		return "FeatureNotFinalized"
	case CodeBeforeWindow:
		return "BeforeWindow"
	case CodeInvalidRequest:
		return "InvalidRequest"
	case CodeUnknownStream:
		return "UnknownStream"
	case CodeUnavailable:
		return "Unavailable"
	case CodeTimeout:
		return "Timeout"
	case CodeInternal:
		return "Internal"
	case CodeAdminRefused:
		return "AdminRefused"
	}
	return fmt.Sprintf("ErrorCode(%d)", uint8(c))
}

// Valid reports whether c is a known, non-zero code.
func (c ErrorCode) Valid() bool { return c > CodeInvalid && c < errorCodeEnd }

// WriteNotApplied reports whether the one copy of a write request this
// answer is for was refused before it was proposed. Timeout and Internal
// leave even that copy's outcome unknown. It says nothing of other copies
// of the same request (the network may duplicate a request, and a client
// re-sends after NotLeader): a NotLeader answer to one copy is consistent
// with another copy having been proposed while the broker still led. Only
// RefusedForEveryCopy codes say a request certainly had no effect.
func (c ErrorCode) WriteNotApplied() bool {
	switch c {
	case CodeTimeout, CodeInternal:
		return false
	}
	return c.Valid()
}

// RefusedForEveryCopy reports whether the refusal follows from the request
// alone (malformed, or addressed to a shard its stream does not route it
// to), so every copy and every re-send of it is refused alike and a write
// answered with it certainly had no effect. Every other answer leaves a
// sent write's outcome unknown.
func (c ErrorCode) RefusedForEveryCopy() bool {
	return c == CodeInvalidRequest || c == CodeNotOnOwningShard
}
