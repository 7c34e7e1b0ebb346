package relay

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
)

// TestSinkSpillReadsBack: a sink holding 4 deliveries at most puts the
// rest on disk and reads back exactly what it got, in order, whole and a
// scope at a time (events with spaces, quotes and newlines included), and
// each delivery is numbered by its place; a line broken or cut behind
// the sink's back is an error (naming the line), never a shorter record.
func TestSinkSpillReadsBack(t *testing.T) {
	scopes := []felix.Scope{{Tenant: "a", Namespace: "n", Stream: "s"}, {Tenant: "b", Namespace: "n", Stream: "s", Shard: 1}}
	s := newSink(scopes)
	s.heldMax = 4
	defer s.Close()
	var want []properties.OutboxDelivery
	for i := 0; i < 23; i++ {
		sc := scopes[i%3%2]
		e := felix.Entry{Offset: uint64(i / 2), Record: felix.Record{Event: felix.EventPublish, Payload: []byte(fmt.Sprintf("ev %d \"q\"\n", i))}}
		if i%5 == 0 {
			e.Record.Event = felix.EventEnqueue
		}
		s.deliver(sc, &e, uint64(1+i/7))
		want = append(want, properties.OutboxDeliveryOf(uint64(i), sc, &e, uint64(1+i/7)))
	}
	if s.spill.n < 16 || s.Len() != 23 {
		t.Fatalf("%d of %d deliveries spilled: the test proves little", s.spill.n, s.Len())
	}
	got, err := s.Deliveries()
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("deliveries read back (%v):\n%+v\nwant\n%+v", err, got, want)
	}
	for _, sc := range scopes {
		got, err := s.ScopeDeliveries([]felix.Scope{sc})
		var part []properties.OutboxDelivery
		for _, d := range want {
			if d.Scope == sc {
				part = append(part, d)
			}
		}
		if err != nil || !reflect.DeepEqual(got, part) {
			t.Fatalf("scope %s read back (%v): %d deliveries, want %d", sc, err, len(got), len(part))
		}
	}
	s.spill.w.Flush()
	if _, err := s.spill.f.(io.WriterAt).WriteAt([]byte("x"), 2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Deliveries(); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("a broken line 1: %v", err)
	}
	if _, err := s.spill.f.(io.WriterAt).WriteAt([]byte("0"), 2); err != nil {
		t.Fatal(err)
	}
	size, _ := s.spill.f.Size()
	if err := s.spill.f.Truncate(size - 3); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Deliveries(); err == nil {
		t.Fatal("a spill file cut short read back without an error")
	}
	if err := s.spill.f.Truncate(size - 40); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ScopeDeliveries(scopes[1:]); err == nil || !strings.Contains(err.Error(), "were written") {
		t.Fatalf("a spill file a line short: %v", err)
	}
}
