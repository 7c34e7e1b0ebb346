package client

// This file holds the client library's planted defects (Defects) and
// their switches: each is read through a hook called at the step of a
// call it changes; nothing else in client reads a Defects field.

import "github.com/felixsim/felixsim/wire"

// Defects are planted client-library bugs, each the shape of a real
// mistake, all off by default, so a simulation can show its checks catch
// them.
type Defects struct {
	// WrongRouteHash routes writes with FNV-1 (multiply, then XOR) where
	// the spec says FNV-1a (XOR, then multiply): the same constants, the
	// two steps swapped, so most keys land on another shard.
	WrongRouteHash bool
	// TimeoutAsFailure completes a write that missed its deadline as a
	// plain failure ("deadline exceeded"): not ErrUnknownOutcome, not
	// ErrTimeout. It is the mistake of reading no answer as no effect: the
	// request may have landed, and a caller that trusts the failure re-sends
	// a write that is already written.
	TimeoutAsFailure bool
	// FailedOnCopyRefusal completes a write whose last request a broker
	// refused before proposing it (NotLeader once the redirects ran out,
	// Unavailable, EphemeralStream, ...: wire.ErrorCode.WriteNotApplied)
	// as failed, not unknown: it reads "this copy was not written" as "the
	// write had no effect", although an earlier copy (sent before a
	// redirect, or duplicated by the network) may have landed.
	FailedOnCopyRefusal bool
}

// shardOfFNV1 is WrongRouteHash's routing function.
func shardOfFNV1(entityKey []byte, shardCount uint32) uint32 {
	if shardCount == 0 {
		panic("client.shardOfFNV1: shardCount is 0")
	}
	h := uint64(fnvOffsetBasis64)
	for _, b := range entityKey {
		h *= fnvPrime64
		h ^= uint64(b)
	}
	return uint32(h % uint64(shardCount))
}

// routeShard is the shard of n that entityKey routes to: ShardOf, or
// shardOfFNV1 under the WrongRouteHash defect.
func (c *Client) routeShard(entityKey []byte, n uint32) uint32 {
	shard := ShardOf(entityKey, n)
	if c.cfg.Defects.WrongRouteHash {
		shard = shardOfFNV1(entityKey, n)
	}
	return shard
}

// timeoutAsFailure is the TimeoutAsFailure defect (a no-op otherwise): a
// write of kind op that missed its deadline ends as a plain failure, not
// an unknown outcome.
func (c *Client) timeoutAsFailure(op wire.RequestKind, ce *CallError) {
	if c.cfg.Defects.TimeoutAsFailure && isWrite(op) {
		ce.Unknown, ce.Cause, ce.Detail = false, nil, "deadline exceeded: "+ce.Detail // planted bug
	}
}

// copyRefusal is the hook on a broker's error answer to a call: under
// FailedOnCopyRefusal, a write whose copy was refused is no longer unknown.
func (c *Client) copyRefusal(ce *CallError) *CallError {
	if c.cfg.Defects.FailedOnCopyRefusal && ce.CopyRefused {
		ce.Unknown = false
	}
	return ce
}
