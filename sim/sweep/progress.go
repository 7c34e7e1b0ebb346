package sweep

import (
	"fmt"
	"time"
)

// Progress is a sweep's state after a seed finished.
type Progress struct {
	// Done counts the seeds that reached a verdict; Total is the shard's
	// seed count (0 when the range is open).
	Done, Total uint64
	Failures    int
	Elapsed     time.Duration
	// TimeLeft is what remains of --for (0 without it).
	TimeLeft time.Duration
}

// SeedsPerSecond is the sweep's rate so far.
func (p Progress) SeedsPerSecond() float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Done) / p.Elapsed.Seconds()
}

// ETA is the wall time until the sweep ends at its current rate: the
// seeds left, or the time left of --for, whichever ends it first; ok is
// false when neither is known yet.
func (p Progress) ETA() (eta time.Duration, ok bool) {
	rate := p.SeedsPerSecond()
	if p.Total > 0 && rate > 0 {
		eta, ok = time.Duration(float64(p.Total-p.Done)/rate*float64(time.Second)), true
	}
	if p.TimeLeft > 0 && (!ok || p.TimeLeft < eta) {
		eta, ok = p.TimeLeft, true
	}
	return eta.Round(time.Second), ok
}

// String is the progress on one line, as a log prints it.
func (p Progress) String() string {
	done := fmt.Sprintf("%d seeds", p.Done)
	if p.Total > 0 {
		done = fmt.Sprintf("%d/%d seeds", p.Done, p.Total)
	}
	eta := "unknown"
	if d, ok := p.ETA(); ok {
		eta = d.String()
	}
	return fmt.Sprintf("%s, %.1f seeds/s, %d failing, %s elapsed, ETA %s",
		done, p.SeedsPerSecond(), p.Failures, p.Elapsed.Round(time.Second), eta)
}
