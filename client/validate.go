package client

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/wire"
)

// buildRecord turns a commit's operations into one record, refusing
// everything a shard would refuse for its shape: no event or more than one,
// operations naming different streams, malformed operations, size limits.
// It returns the stream every operation names.
func buildRecord(ops []CommitOp) (felix.Record, string, error) {
	var rec felix.Record
	if len(ops) == 0 {
		return rec, "", commitErr(NoEvent, "a commit needs exactly one publish or enqueue; it has no operations")
	}
	stream := ops[0].stream
	events := 0
	for i, op := range ops {
		if op.kind == opInvalid {
			return rec, "", commitErr(InvalidOperation, "operation %d is a zero CommitOp; build it with Publish, Enqueue, Put or Delete", i)
		}
		if op.stream != stream {
			return rec, "", commitErr(NotOnOwningShard, "operation %d, %s, names stream %q but operation 0, %s, names %q: a commit is one record in one stream shard's log", i, op, op.stream, ops[0], stream)
		}
		if op.isEvent() {
			events++
			if events > 1 {
				return rec, "", commitErr(ManyEvents, "operation %d, %s, is a second event; a commit carries exactly one", i, op)
			}
			rec.Event, rec.Payload = op.eventKind(), op.bytes
			continue
		}
		rec.Ops = append(rec.Ops, op.stateOp())
	}
	if events == 0 {
		return rec, "", commitErr(NoEvent, "a commit needs exactly one publish or enqueue; its %d operations are all puts and deletes", len(ops))
	}
	if err := rec.Validate(); err != nil {
		return rec, "", commitErr(InvalidOperation, "%v", err)
	}
	return rec, stream, nil
}

// writeScope validates names and routes a write by its entity (or routing) key.
func (c *Client) writeScope(tenant, namespace, stream string, entityKey []byte) (felix.Scope, error) {
	s := felix.Scope{Tenant: tenant, Namespace: namespace, Stream: stream}
	if err := s.Validate(); err != nil {
		return s, commitErr(InvalidScope, "%v", err)
	}
	n, ok := c.ShardCount(namespace, stream)
	if !ok {
		return s, commitErr(UnknownStream, "the topology has no stream %s/%s", namespace, stream)
	}
	s.Shard = c.routeShard(entityKey, n)
	return s, nil
}

// readScope validates names and the shard of a read or group call.
func (c *Client) readScope(op wire.RequestKind, s felix.Scope) error {
	if err := s.Validate(); err != nil {
		return argErr(op, "%v", err)
	}
	n, ok := c.ShardCount(s.Namespace, s.Stream)
	if !ok {
		return argErr(op, "the topology has no stream %s/%s", s.Namespace, s.Stream)
	}
	if s.Shard >= n {
		return argErr(op, "shard %d is out of range: stream %s/%s has %d", s.Shard, s.Namespace, s.Stream, n)
	}
	return nil
}

// checkRequest applies the wire's own validation and frame-size limit, so a
// request the client sends is one the broker can decode.
func checkRequest(q *wire.Request) error {
	write := wire.RecordOf(q.Body) != nil
	if err := q.Validate(); err != nil {
		if write {
			return commitErr(InvalidOperation, "%v", err)
		}
		return argErr(q.Body.Kind(), "%v", err)
	}
	if n, max := wire.RequestFrameLen(q), wire.FrameBodyLenMax+wire.FrameOverheadLen; n > max {
		if write {
			return commitErr(InvalidOperation, "request encodes to %d bytes, over the frame limit %d", n, max)
		}
		return argErr(q.Body.Kind(), "request encodes to %d bytes, over the frame limit %d", n, max)
	}
	return nil
}

func argErr(op wire.RequestKind, format string, args ...any) error {
	return &ArgumentError{Op: op, Detail: fmt.Sprintf(format, args...)}
}
