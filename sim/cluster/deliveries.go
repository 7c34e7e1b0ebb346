package cluster

import "github.com/felixsim/felixsim/wire"

// RequestDeliveriesMax caps the requests a RequestDeliveries tally
// counts. Overflow policy: a request first delivered once the tally is
// full is not counted, and the tally reports itself Overflowed; Copies
// then cannot tell an uncounted request from one never delivered and
// says the count is unknown for every request it holds no count of.
const RequestDeliveriesMax = 1 << 22

// requestKey names one request: the sender's sim id and its request id
// (ids are unique per client endpoint).
type requestKey struct {
	from int
	id   uint64
}

// RequestDeliveries counts, per client write request (and per group
// fetch, ack, outbox trim and subscribe read: see counted), the copies the
// simulated network delivered to any broker (every incarnation, every
// broker): a duplicated message counts twice, a lost one or one dropped
// at a down broker not at all. It only reads the messages, at the
// brokers' doors, so counting changes nothing in the run. It is only
// looked up, never iterated, so its map order reaches nothing.
//
// Invariant: len(copies) <= copiesMax (RequestDeliveriesMax in a cluster).
type RequestDeliveries struct {
	copies     map[requestKey]uint32
	copiesMax  int
	overflowed bool
}

// RequestDeliveries is the cluster's tally of delivered write requests,
// counted since it was built.
func (c *Cluster) RequestDeliveries() *RequestDeliveries { return c.deliveries }

func newRequestDeliveries(copiesMax int) *RequestDeliveries {
	return &RequestDeliveries{copies: map[requestKey]uint32{}, copiesMax: copiesMax}
}

// note counts one delivered copy of req from sim id from, if it is a
// request whose copies a check counts: a write (a request that carries a
// record), a group fetch or ack, an outbox trim, or a subscribe read (a
// live read drains its subscriber's queue once per copy).
func (t *RequestDeliveries) note(from int, req *wire.Request) {
	if !counted(req.Body) {
		return
	}
	k := requestKey{from: from, id: req.ID}
	n, ok := t.copies[k]
	switch {
	case ok:
		t.copies[k] = n + 1
	case len(t.copies) >= t.copiesMax:
		t.overflowed = true
	default:
		t.copies[k] = 1
	}
}

// Copies is how many copies of the write request id sent by sim id from
// were delivered to a broker; known is false when the tally overflowed
// and holds no count of it.
func (t *RequestDeliveries) Copies(from int, id uint64) (copies uint32, known bool) {
	n, ok := t.copies[requestKey{from: from, id: id}]
	return n, ok || !t.overflowed
}

// Overflowed reports whether a request went uncounted for the cap.
func (t *RequestDeliveries) Overflowed() bool { return t.overflowed }

// counted reports whether the tally counts copies of a request of body's kind.
func counted(body wire.RequestBody) bool {
	switch body.(type) {
	case *wire.GroupFetch, *wire.GroupAck, *wire.OutboxTrim, *wire.SubscribeRead:
		return true
	}
	return wire.RecordOf(body) != nil
}
