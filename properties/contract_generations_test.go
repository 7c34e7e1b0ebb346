package properties

import "testing"

// TestWritesInTheirGeneration: a write accepted and applied in generation
// 1 passes; applied after the delete's marker (generation 1 deleted) or
// in generation 2 it fails; a second copy accepted in generation 2 makes
// a landing there right; a landing no acceptance names is not judged.
func TestWritesInTheirGeneration(t *testing.T) {
	gen := func(g uint32, deleted bool) GenerationStamp { return GenerationStamp{Generation: g, Deleted: deleted} }
	accepted := []GenerationWrite{{Broker: 1, Group: 2, Value: 7, Stamp: gen(1, false), AtNs: 10}}
	landed := func(s GenerationStamp) []GenerationWrite {
		return []GenerationWrite{{Broker: 2, Group: 2, Value: 7, Offset: 3, Stamp: s, AtNs: 20}}
	}
	if n, err := WritesInTheirGeneration(accepted, landed(gen(1, false))); err != nil || n != 1 {
		t.Fatalf("accepted and applied in generation 1: judged %d, %v", n, err)
	}
	for _, s := range []GenerationStamp{gen(1, true), gen(2, false)} {
		_, err := WritesInTheirGeneration(accepted, landed(s))
		wantInvariant(t, "accepted in generation 1, applied in "+s.String(), err, InvariantWriteInItsGeneration)
	}
	again := append(accepted, GenerationWrite{Broker: 3, Group: 2, Value: 7, Stamp: gen(2, false), AtNs: 30})
	if _, err := WritesInTheirGeneration(again, landed(gen(2, false))); err != nil {
		t.Fatalf("a copy accepted in generation 2: %v", err)
	}
	otherGroup := []GenerationWrite{{Broker: 2, Group: 5, Value: 7, Stamp: gen(2, false)}}
	if n, err := WritesInTheirGeneration(accepted, otherGroup); err != nil || n != 0 {
		t.Fatalf("a landing no acceptance names: judged %d, %v", n, err)
	}
}
