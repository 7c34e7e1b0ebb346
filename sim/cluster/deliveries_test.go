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
