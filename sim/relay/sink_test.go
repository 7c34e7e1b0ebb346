package relay

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/vfs"
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
	if s.spill.n() < 16 || s.Len() != 23 {
		t.Fatalf("%d of %d deliveries spilled: the test proves little", s.spill.n(), s.Len())
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
	s.spill.file.Flush()
	if _, err := s.spill.file.File().(io.WriterAt).WriteAt([]byte("x"), 2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Deliveries(); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("a broken line 1: %v", err)
	}
	if _, err := s.spill.file.File().(io.WriterAt).WriteAt([]byte("0"), 2); err != nil {
		t.Fatal(err)
	}
	size, _ := s.spill.file.File().Size()
	if err := s.spill.file.File().Truncate(size - 3); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Deliveries(); err == nil {
		t.Fatal("a spill file cut short read back without an error")
	}
	b := make([]byte, size-3)
	if _, err := s.spill.file.File().ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.spill.file.File().Truncate(int64(bytes.LastIndexByte(b[:size-40], '\n') + 1)); err != nil { // whole lines only
		t.Fatal(err)
	}
	if _, err := s.ScopeDeliveries(scopes[1:]); err == nil || !strings.Contains(err.Error(), "were written") {
		t.Fatalf("a spill file a line short: %v", err)
	}
}

// FuzzSinkSpillRead: whatever lines a sink's file holds, reading it back
// gives deliveries or an error, never a panic; deliveries read back are
// one a line, numbered by their place. (The file's line count against
// what was written is vfs.LineFile's, tested there.)
func FuzzSinkSpillRead(f *testing.F) {
	for _, seed := range []string{
		"0 0 0 true 1 \"ev\"\n1 1 0 false 1 \"ev 1 \\\"q\\\"\\n\"",
		"0 1 0 true 1 \"ev\"",  // a delivery out of its place
		"2 0 0 true 1 \"ev\"",  // a tag no scope has
		"0 0 0 maybe 1 \"ev\"", // not a bool
		"0 0 0 true 1 ev",      // an unquoted event
		"0 0 0 true",           // fields short
		"-1 0 0 true 1 \"ev\"", // a negative tag
		"", "\n",
	} {
		f.Add([]byte(seed))
	}
	scopes := []felix.Scope{{Tenant: "a", Namespace: "n", Stream: "s"}, {Tenant: "b", Namespace: "n", Stream: "s", Shard: 1}}
	f.Fuzz(func(t *testing.T, content []byte) {
		s := sinkSpill{file: vfs.NewLineFile("relay sink spill", t.TempDir(), "sink-*.txt", 1<<10, sinkLineLenMax)}
		defer s.close()
		lines := bytes.Split(content, []byte("\n"))
		for _, l := range lines {
			if err := s.file.Append(append(l, '\n')); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.read(scopes, func(int) bool { return true })
		if err != nil {
			return
		}
		if len(got) != len(lines) {
			t.Fatalf("%d deliveries read back from %d lines", len(got), len(lines))
		}
		for i, d := range got {
			if d.Seq != uint64(i) {
				t.Fatalf("delivery %d read back numbered %d", i, d.Seq)
			}
		}
	})
}
