package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestGCPercentFor: GOGC 400 while four times the live heap fits the
// cap, then the percentage that keeps the headroom at the cap, never
// under 100. Expected values worked by hand for a 512 MiB cap.
func TestGCPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live int64
		want int
	}{{0, 400}, {-1, 400}, {1, 400}, {64 * mib, 400}, {128 * mib, 400}, {129 * mib, 396},
		{256 * mib, 200}, {400 * mib, 128}, {512 * mib, 100}, {1024 * mib, 100}, {8 << 30, 100}} {
		if got := gcPercentFor(c.live, 512*mib); got != c.want {
			t.Errorf("live %d bytes: GOGC %d, want %d", c.live, got, c.want)
		}
	}
}

// TestGCHeadroomRetunes: with the governor running, a live heap four
// times its cap brings the GC percentage down to 100 after a
// collection, and letting that heap go brings it back to 400.
func TestGCHeadroomRetunes(t *testing.T) {
	prev := debug.SetGCPercent(gcPercentDefault)
	defer debug.SetGCPercent(prev)
	startGCHeadroomAt(16 << 20)
	live := make([][]byte, 64)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	waitGCPercent(t, 100)
	runtime.KeepAlive(live)
	live = nil
	waitGCPercent(t, gcPercentDefault)
}

// waitGCPercent collects until the governor has set want (it runs on the
// finalizer goroutine after each collection), failing after 5 s.
func waitGCPercent(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		got := debug.SetGCPercent(want)
		debug.SetGCPercent(got)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GC percent %d after 5 s, want %d", got, want)
		}
	}
}
