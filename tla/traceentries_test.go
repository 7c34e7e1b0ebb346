package tla

import (
	"testing"

	"pgregory.net/rapid"
)

// TestEntryTableMatchesMaps: the entry table answers as the two maps it
// replaced (entries sent keyed by (term, index), acknowledgements keyed
// by (term, index, broker)) after any sequence of sends and acks, with
// several terms at one index and broker ids past the acked bits.
func TestEntryTableMatchesMaps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var tab entryTable
		sent := map[entryKey]sentEntry{}
		acks := map[ackKey]struct{}{}
		key := func(t *rapid.T) entryKey {
			return entryKey{term: rapid.Uint64Range(0, 4).Draw(t, "term"), index: rapid.Uint64Range(0, 12).Draw(t, "index")}
		}
		broker := func(t *rapid.T) uint64 {
			return rapid.SampledFrom([]uint64{0, 1, 2, 3, 9, ackBitsMax - 1, ackBitsMax, ackBitsMax + 7, 1 << 40}).Draw(t, "broker")
		}
		for range rapid.IntRange(0, 60).Draw(t, "ops") {
			k := key(t)
			switch rapid.IntRange(0, 1).Draw(t, "op") {
			case 0:
				e := sentEntry{digest: rapid.Uint64Range(0, 3).Draw(t, "digest"), prevTerm: rapid.Uint64Range(0, 4).Draw(t, "prev")}
				tab.send(k, e)
				sent[k] = e
			case 1:
				b := broker(t)
				tab.ack(k, b)
				acks[ackKey{k.term, k.index, b}] = struct{}{}
			}
			// Every key and broker of the drawn ranges, and indexes past the table's end.
			for term := uint64(0); term <= 4; term++ {
				for index := uint64(0); index <= 14; index++ {
					q := entryKey{term, index}
					got, ok := tab.sent(q)
					want, wok := sent[q]
					if ok != wok || got != want {
						t.Fatalf("sent(%v) = %v, %t; the map has %v, %t", q, got, ok, want, wok)
					}
					for _, b := range []uint64{0, 1, 2, 3, 9, ackBitsMax - 1, ackBitsMax, ackBitsMax + 7, 1 << 40} {
						_, want := acks[ackKey{term, index, b}]
						if got := tab.acked(q, b); got != want {
							t.Fatalf("acked(%v, %d) = %t; the map has %t", q, b, got, want)
						}
					}
				}
			}
		}
	})
}
