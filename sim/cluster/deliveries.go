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
// A sender numbers its requests 1, 2, 3, ..., so each sender's counts
// are a dense array by request id, two bytes a request (a map of every
// request cost some forty: the tally grows with the run either way). A
// count the array cannot hold (an id far past the sender's others, a
// sender id out of range, more than 65,535 copies) goes to a map.
//
// Invariant: counted <= copiesMax (RequestDeliveriesMax in a cluster);
// a request is counted in dense or in sparse, never both.
type RequestDeliveries struct {
	dense      [][]uint16
	sparse     map[requestKey]uint32
	counted    int
	copiesMax  int
	overflowed bool
}

// Dense counting's bounds: sender ids below deliverySendersMax, and ids
// at most deliveryIDGapMax past a sender's highest counted one.
const (
	deliverySendersMax = 1 << 10
	deliveryIDGapMax   = 1 << 16
)

// RequestDeliveries is the cluster's tally of delivered write requests,
// counted since it was built.
func (c *Cluster) RequestDeliveries() *RequestDeliveries { return c.deliveries }

func newRequestDeliveries(copiesMax int) *RequestDeliveries {
	return &RequestDeliveries{sparse: map[requestKey]uint32{}, copiesMax: copiesMax}
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
	if n, ok := t.sparse[k]; ok {
		t.sparse[k] = n + 1
		return
	}
	d := t.denseSlot(k, true)
	n := uint32(0)
	if d != nil {
		n = uint32(*d)
	}
	if n == 0 {
		if t.counted >= t.copiesMax {
			t.overflowed = true
			return
		}
		t.counted++
	}
	if d != nil && n+1 < 1<<16 {
		*d = uint16(n + 1)
		return
	}
	if d != nil {
		*d = 0 // past what the array holds: the map counts it from now on
	}
	t.sparse[k] = n + 1
}

// count is k's copies so far (0: never delivered or not counted).
func (t *RequestDeliveries) count(k requestKey) uint32 {
	if d := t.denseSlot(k, false); d != nil && *d > 0 {
		return uint32(*d)
	}
	return t.sparse[k]
}

// denseSlot is k's place in the dense arrays, grown to hold it when grow
// allows and k is within their bounds; nil when it has none.
func (t *RequestDeliveries) denseSlot(k requestKey, grow bool) *uint16 {
	if k.from < 0 || k.from >= deliverySendersMax {
		return nil
	}
	if grow && k.from >= len(t.dense) {
		t.dense = append(t.dense, make([][]uint16, k.from+1-len(t.dense))...)
	}
	if k.from >= len(t.dense) {
		return nil
	}
	a := t.dense[k.from]
	if k.id < uint64(len(a)) {
		return &a[k.id]
	}
	if !grow || k.id >= uint64(len(a))+deliveryIDGapMax {
		return nil
	}
	a = append(a, make([]uint16, k.id+1-uint64(len(a)))...)
	t.dense[k.from] = a
	return &a[k.id]
}

// Copies is how many copies of the write request id sent by sim id from
// were delivered to a broker; known is false when the tally overflowed
// and holds no count of it.
func (t *RequestDeliveries) Copies(from int, id uint64) (copies uint32, known bool) {
	n := t.count(requestKey{from: from, id: id})
	return n, n > 0 || !t.overflowed
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
