package workload

import "testing"

// TestSlotDrawsDependOnTheSlotAlone: a slot's operation is drawn from a
// generator keyed by the slot's number, so what earlier slots, retries and
// gaps drew does not move it: slot 5 alone draws what slot 5 draws after
// slots 0..4 (the shrinker skips slots and expects the rest unchanged).
func TestSlotDrawsDependOnTheSlotAlone(t *testing.T) {
	busy := clientDraws{slotsSeed: 11}
	var first []uint64
	for n := 0; n < 6; n++ {
		r := busy.slot(n)
		first = append(first, r.Uint64())
		for range n { // an operation drawing more or fewer numbers
			r.Uint64()
		}
	}
	quiet := clientDraws{slotsSeed: 11}
	if got := quiet.slot(5).Uint64(); got != first[5] {
		t.Fatalf("slot 5 draws %x alone, %x after slots 0..4", got, first[5])
	}
	for n := 1; n < len(first); n++ {
		if first[n] == first[n-1] {
			t.Fatalf("slots %d and %d draw the same %x", n-1, n, first[n])
		}
	}
	if other := (&clientDraws{slotsSeed: 12}).slot(5).Uint64(); other == first[5] {
		t.Fatal("two clients' slot 5 draw the same number")
	}
}
