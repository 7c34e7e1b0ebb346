package world

import (
	"strings"
	"testing"
)

// drawsAt returns one number from each of d's draw sites at the given times.
func drawsAt(d *instantDraws, timesNs ...int64) []uint64 {
	var out []uint64
	for _, t := range timesNs {
		out = append(out, d.at(t).Uint64())
	}
	return out
}

// TestInstantDrawsDependOnTheInstantAlone: a draw site's numbers depend on
// its stream, its instant and its rank there, not on the draw sites before
// it: a stream that skipped an earlier instant, or drew more there, gives
// the later sites the same numbers. A sequential stream would shift them.
func TestInstantDrawsDependOnTheInstantAlone(t *testing.T) {
	full := newInstantDraws(9, "network/0->1")
	got := drawsAt(&full, 5, 5, 5, 10, 10, 30)
	sparse := newInstantDraws(9, "network/0->1")
	if want := drawsAt(&sparse, 10, 10, 30); got[3] != want[0] || got[4] != want[1] || got[5] != want[2] {
		t.Fatalf("draws at 10, 10, 30 ns after three at 5 ns: %x; without them: %x", got[3:], want)
	}
	seen := map[uint64]bool{}
	for _, v := range got {
		if seen[v] {
			t.Fatalf("two draw sites got the same number %x: %x", v, got)
		}
		seen[v] = true
	}
	other := newInstantDraws(9, "network/1->0")
	if drawsAt(&other, 10)[0] == got[3] {
		t.Fatal("two streams gave the same draw at the same instant")
	}
	reseeded := newInstantDraws(10, "network/0->1")
	if drawsAt(&reseeded, 10)[0] == got[3] {
		t.Fatal("two run seeds gave the same draw at the same instant")
	}
}

// TestInstantDrawsRefuseTimeGoingBack: a draw before the last one's time
// is a harness bug (the keys would repeat), and panics with both times.
func TestInstantDrawsRefuseTimeGoingBack(t *testing.T) {
	d := newInstantDraws(1, "disk/0")
	d.at(20)
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "at 19 ns after one at 20 ns") {
			t.Fatalf("draw going back in time: recovered %v", r)
		}
	}()
	d.at(19)
}
