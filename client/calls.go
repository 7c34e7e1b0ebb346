package client

import (
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/wire"
)

// The calls below validate first and return an error wrapping ErrNotSent,
// with nothing sent, when validation fails. Otherwise they send one request
// and return its Pending handle. The byte slices passed in are held until
// the call completes and must not be modified meanwhile.

// Commit writes ops (exactly one Publish or Enqueue plus any Puts and
// Deletes, all on one stream) as one record on the shard entityKey routes to.
func (c *Client) Commit(nowNs int64, tenant, namespace string, entityKey []byte, ops []CommitOp) (*Pending[Receipt], error) {
	q, err := c.commitRequest(tenant, namespace, entityKey, ops, false, 0)
	if err != nil {
		return nil, err
	}
	return sendCall(c, nowNs, q, receipt)
}

// CommitIf is Commit written only if expectedOffset is the shard's next
// offset when the record is applied; otherwise it is refused with the tail.
func (c *Client) CommitIf(nowNs int64, tenant, namespace string, entityKey []byte, ops []CommitOp, expectedOffset uint64) (*Pending[ConditionalWrite], error) {
	q, err := c.commitRequest(tenant, namespace, entityKey, ops, true, expectedOffset)
	if err != nil {
		return nil, err
	}
	return sendCall(c, nowNs, q, conditional)
}

// Publish writes one event for subscribers on the shard routingKey routes to.
func (c *Client) Publish(nowNs int64, tenant, namespace, stream string, routingKey, payload []byte) (*Pending[Receipt], error) {
	q, err := c.eventRequest(tenant, namespace, stream, routingKey, &wire.Publish{Record: felix.Record{Event: felix.EventPublish, Payload: payload}})
	if err != nil {
		return nil, err
	}
	return sendCall(c, nowNs, q, publishReceipt)
}

// PublishIf is Publish written only at expectedOffset, the shard's next.
func (c *Client) PublishIf(nowNs int64, tenant, namespace, stream string, routingKey, payload []byte, expectedOffset uint64) (*Pending[ConditionalWrite], error) {
	rec := felix.Record{Event: felix.EventPublish, Payload: payload, Conditional: true, ExpectedOffset: expectedOffset}
	q, err := c.eventRequest(tenant, namespace, stream, routingKey, &wire.PublishIf{Record: rec})
	if err != nil {
		return nil, err
	}
	return sendCall(c, nowNs, q, conditional)
}

// Enqueue writes one event as work for the stream's consumer groups.
func (c *Client) Enqueue(nowNs int64, tenant, namespace, stream string, routingKey, payload []byte) (*Pending[Receipt], error) {
	q, err := c.eventRequest(tenant, namespace, stream, routingKey, &wire.Enqueue{Record: felix.Record{Event: felix.EventEnqueue, Payload: payload}})
	if err != nil {
		return nil, err
	}
	return sendCall(c, nowNs, q, receipt)
}

// StateGet reads key from the keyed state of the shard entityKey routes to;
// the version is the offset of the commit that wrote the value.
func (c *Client) StateGet(nowNs int64, tenant, namespace, stream string, entityKey []byte, key string) (*Pending[State], error) {
	s, err := c.writeScope(tenant, namespace, stream, entityKey)
	if err != nil {
		ce := err.(*CommitError)
		return nil, argErr(wire.RequestStateGet, "%s: %s", ce.Code, ce.Detail)
	}
	return readCall(c, nowNs, wire.Request{Scope: s, Body: &wire.StateGet{Key: key}}, stateValue)
}

// Subscribe reads up to maxEntries committed entries of one shard from
// fromOffset on. A read from before the retained window fails with
// ErrBeforeWindow (the window's start is in CallError.Broker); an empty
// result means the reader is caught up.
func (c *Client) Subscribe(nowNs int64, s felix.Scope, fromOffset uint64, maxEntries uint32) (*Pending[[]felix.Entry], error) {
	return readCall(c, nowNs, wire.Request{Scope: s, Body: &wire.SubscribeRead{FromOffset: fromOffset, MaxEntries: maxEntries}}, entries)
}

// GroupFetch asks for up to maxEntries records of one shard as work for
// group, leased for leaseNs; unacked work is redelivered after the lease.
func (c *Client) GroupFetch(nowNs int64, s felix.Scope, group string, maxEntries uint32, leaseNs uint64) (*Pending[Deliveries], error) {
	return readCall(c, nowNs, wire.Request{Scope: s, Body: &wire.GroupFetch{Group: group, MaxEntries: maxEntries, LeaseNs: leaseNs}}, deliveries)
}

// GroupAck reports the record at offset done for group.
func (c *Client) GroupAck(nowNs int64, s felix.Scope, group string, offset uint64) (*Pending[struct{}], error) {
	return readCall(c, nowNs, wire.Request{Scope: s, Body: &wire.GroupAck{Group: group, Offset: offset}}, acked)
}

// OutboxRead reads up to maxEntries of one scope's outbox from fromOffset
// on, in offset order: each entry is a committed record's event (its
// record carries the event alone) not yet trimmed. A relay's call.
func (c *Client) OutboxRead(nowNs int64, s felix.Scope, fromOffset uint64, maxEntries uint32) (*Pending[[]felix.Entry], error) {
	return readCall(c, nowNs, wire.Request{Scope: s, Body: &wire.OutboxRead{FromOffset: fromOffset, MaxEntries: maxEntries}}, entries)
}

// OutboxTrim confirms one scope's outbox entries through throughOffset
// delivered, so every replica drops them. Trimming again is harmless.
func (c *Client) OutboxTrim(nowNs int64, s felix.Scope, throughOffset uint64) (*Pending[struct{}], error) {
	return readCall(c, nowNs, wire.Request{Scope: s, Body: &wire.OutboxTrim{ThroughOffset: throughOffset}}, acked)
}

func (c *Client) commitRequest(tenant, namespace string, entityKey []byte, ops []CommitOp, cond bool, expected uint64) (wire.Request, error) {
	rec, stream, err := buildRecord(ops)
	if err != nil {
		return wire.Request{}, err
	}
	s, err := c.writeScope(tenant, namespace, stream, entityKey)
	if err != nil {
		return wire.Request{}, err
	}
	if cond {
		rec.Conditional, rec.ExpectedOffset = true, expected
		return wire.Request{Scope: s, Body: &wire.CommitIf{Record: rec}}, nil
	}
	return wire.Request{Scope: s, Body: &wire.Commit{Record: rec}}, nil
}

func (c *Client) eventRequest(tenant, namespace, stream string, routingKey []byte, body wire.RequestBody) (wire.Request, error) {
	s, err := c.writeScope(tenant, namespace, stream, routingKey)
	if err != nil {
		return wire.Request{}, err
	}
	if err := wire.RecordOf(body).Validate(); err != nil {
		return wire.Request{}, commitErr(InvalidOperation, "%v", err)
	}
	return wire.Request{Scope: s, Body: body}, nil
}

// readCall validates a read or group call's scope, then sends it.
func readCall[T any](c *Client, nowNs int64, q wire.Request, decode func(wire.AnswerBody) (T, bool)) (*Pending[T], error) {
	if err := c.readScope(q.Body.Kind(), q.Scope); err != nil {
		return nil, err
	}
	return sendCall(c, nowNs, q, decode)
}

// sendCall applies the wire's checks, sends q and wires its completion to a
// new Pending: decode turns a fitting answer into the result; any other
// answer completes the call with ErrProtocol.
func sendCall[T any](c *Client, nowNs int64, q wire.Request, decode func(wire.AnswerBody) (T, bool)) (*Pending[T], error) {
	if err := checkRequest(&q); err != nil {
		return nil, err
	}
	p := &Pending[T]{}
	cl, err := c.send(nowNs, q, func(cl *call, body wire.AnswerBody, ce *CallError) {
		var zero T
		if ce != nil {
			p.complete(zero, ce)
			return
		}
		v, ok := decode(body)
		if !ok {
			p.complete(zero, protocolError(cl, body))
			return
		}
		p.complete(v, nil)
	})
	if err != nil {
		return nil, err
	}
	p.id, p.cl = cl.req.ID, cl
	return p, nil
}

func receipt(b wire.AnswerBody) (Receipt, bool) {
	w, ok := b.(*wire.Written)
	if !ok {
		return Receipt{}, false
	}
	return Receipt{Offset: w.Offset}, true
}

// publishReceipt also takes an ephemeral stream's Acked: a publish there
// reaches the live subscribers and writes nothing, so it has no offset.
func publishReceipt(b wire.AnswerBody) (Receipt, bool) {
	if _, ok := b.(*wire.Acked); ok {
		return Receipt{Ephemeral: true}, true
	}
	return receipt(b)
}

func conditional(b wire.AnswerBody) (ConditionalWrite, bool) {
	switch a := b.(type) {
	case *wire.Written:
		return Written{Offset: a.Offset}, true
	case *wire.Refused:
		return Refused{Tail: a.Tail}, true
	}
	return nil, false
}

func stateValue(b wire.AnswerBody) (State, bool) {
	v, ok := b.(*wire.StateValue)
	if !ok {
		return State{}, false
	}
	return State{Found: v.Found, Value: v.Value, Version: v.Version}, true
}

func entries(b wire.AnswerBody) ([]felix.Entry, bool) {
	e, ok := b.(*wire.Entries)
	if !ok {
		return nil, false
	}
	return e.Entries, true
}

func deliveries(b wire.AnswerBody) (Deliveries, bool) {
	d, ok := b.(*wire.Deliveries)
	if !ok {
		return Deliveries{}, false
	}
	return Deliveries{Entries: d.Entries, LeaseExpiryNs: d.LeaseExpiryNs}, true
}

func acked(b wire.AnswerBody) (struct{}, bool) {
	_, ok := b.(*wire.Acked)
	return struct{}{}, ok
}
