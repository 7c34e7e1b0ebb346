package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// gcHeadroomBytesMax caps the collector's headroom (the heap it lets grow
// above what is live) once GOGC 400 would allow more: a run's live heap
// grows with its length, and four times that again is memory a long run
// holds for little (docs/performance.md "Memory" measures a 600 s run's
// peak and CPU with this cap and with twice it; runs whose live heap stays
// under 64 MB, up to about 120 simulated s, never reach it).
const gcHeadroomBytesMax = 256 << 20

// gcPercentMin is the lowest GC percentage the headroom cap sets: the
// collector never runs more often than the Go default.
const gcPercentMin = 100

// gcPercentFor is the GC percentage for a live heap of liveBytes: the
// default while its headroom stays under headroomBytes, then the
// percentage that keeps it there, never under gcPercentMin.
func gcPercentFor(liveBytes, headroomBytes int64) int {
	if liveBytes <= 0 {
		return gcPercentDefault
	}
	p := headroomBytes * 100 / liveBytes
	return int(max(gcPercentMin, min(int64(gcPercentDefault), p)))
}

// startGCHeadroom re-tunes the GC percentage after every collection, from
// the live heap that collection measured. It runs on the runtime's
// finalizer goroutine and touches nothing but the collector's setting:
// no simulated state, so no trace can depend on it.
func startGCHeadroom() { startGCHeadroomAt(gcHeadroomBytesMax) }

// startGCHeadroomAt is startGCHeadroom with the cap headroomBytes.
func startGCHeadroomAt(headroomBytes int64) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	percent := gcPercentDefault
	var arm func()
	arm = func() {
		sentinel := new(gcSentinel)
		runtime.SetFinalizer(sentinel, func(*gcSentinel) {
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				if p := gcPercentFor(int64(sample[0].Value.Uint64()), headroomBytes); p != percent {
					percent = p
					debug.SetGCPercent(p)
				}
			}
			arm()
		})
	}
	arm()
}

// gcSentinel is the object whose finalizer runs after each collection. It
// holds a pointer so the runtime never packs it with other small objects
// (the tiny allocator's objects may never be finalized).
type gcSentinel struct{ _ *int }
