package cluster

import (
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/wire"
)

func publishReq(id uint64) *wire.Request {
	return &wire.Request{ID: id, Body: &wire.Publish{Record: felix.Record{Event: felix.EventPublish, Payload: []byte("p")}}}
}

// TestRequestDeliveriesCounts: each delivered copy of a write counts, per
// sender and request id; reads are not counted; past the cap a new
// request is unknown, never a count of zero.
func TestRequestDeliveriesCounts(t *testing.T) {
	d := newRequestDeliveries(2)
	d.note(5, publishReq(1))
	d.note(5, publishReq(1)) // a network duplicate
	d.note(6, publishReq(1)) // another client's request 1
	d.note(5, &wire.Request{ID: 2, Body: &wire.StateGet{Key: "k"}})
	want := []struct {
		from   int
		id     uint64
		copies uint32
		known  bool
	}{{5, 1, 2, true}, {6, 1, 1, true}, {5, 2, 0, true}, {7, 9, 0, true}}
	for _, w := range want {
		if n, ok := d.Copies(w.from, w.id); n != w.copies || ok != w.known {
			t.Errorf("Copies(%d, %d) = %d, %t; want %d, %t", w.from, w.id, n, ok, w.copies, w.known)
		}
	}
	if d.Overflowed() {
		t.Fatal("overflowed below the cap")
	}
	d.note(5, publishReq(3)) // a third request: past the cap of 2
	d.note(5, publishReq(1)) // a counted one still counts
	if n, ok := d.Copies(5, 3); ok || n != 0 {
		t.Errorf("past the cap: Copies = %d, %t; want unknown", n, ok)
	}
	if n, ok := d.Copies(7, 9); ok {
		t.Errorf("after overflow a never-seen request is unknown, got %d, %t", n, ok)
	}
	if n, ok := d.Copies(5, 1); n != 3 || !ok {
		t.Errorf("counted request after overflow: %d, %t; want 3, true", n, ok)
	}
	if !d.Overflowed() {
		t.Fatal("not overflowed past the cap")
	}
}

// TestRequestDeliveriesDenseAndSparse: counts kept in the dense arrays,
// in the map (a sender id out of range, an id far past the sender's
// others) and moved from one to the other (more copies than two bytes
// hold) all read back as counted, by an independent tally.
func TestRequestDeliveriesDenseAndSparse(t *testing.T) {
	d := newRequestDeliveries(1 << 20)
	want := map[requestKey]uint32{}
	note := func(from int, id uint64, times int) {
		for i := 0; i < times; i++ {
			d.note(from, publishReq(id))
			want[requestKey{from, id}]++
		}
	}
	note(3, 1, 1)
	note(3, 2, 70000) // past 65,535: moves to the map
	note(3, 3, 2)
	note(deliverySendersMax+5, 1, 3) // sender id out of the arrays' range
	note(4, 1<<40, 2)                // an id far past the sender's others
	note(4, 7, 1)
	note(3, 2, 1)
	for k, n := range want {
		if got, ok := d.Copies(k.from, k.id); got != n || !ok {
			t.Fatalf("Copies(%d, %d) = %d, %t; want %d", k.from, k.id, got, ok, n)
		}
	}
	if got, ok := d.Copies(3, 9); got != 0 || !ok || d.counted != len(want) || d.Overflowed() {
		t.Fatalf("an unseen request: %d, %t; %d counted, want %d", got, ok, d.counted, len(want))
	}
	if _, inMap := d.sparse[requestKey{3, 2}]; !inMap || d.dense[3][2] != 0 || len(d.dense[4]) > 8 {
		t.Fatalf("request 2 of sender 3 in the map %v (array %d), sender 4's array %d long", inMap, d.dense[3][2], len(d.dense[4]))
	}
}
