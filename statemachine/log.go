package statemachine

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
)

// retainedLog is the shard's retained log: a ring of the entries from
// firstOffset up to (not including) nextOffset.
//
// Invariant: nextOffset - firstOffset == count <= lenMax.
// Invariant: the entry at ring[(head+i)%len(ring)] has offset firstOffset+i.
// Invariant: an entry is written once, by append, and cleared by
// dropOldest (grow only moves it): a retained record never changes in
// place, so a checker that verified it need not read it again.
type retainedLog struct {
	ring        []felix.Entry
	head        int
	count       int
	lenMax      int
	firstOffset uint64
	nextOffset  uint64
}

// ringLenMin is the ring's first allocation, in entries; it doubles from
// there up to lenMax.
const ringLenMin = 4

func newRetainedLog(lenMax int, startOffset uint64) retainedLog {
	return retainedLog{lenMax: lenMax, firstOffset: startOffset, nextOffset: startOffset}
}

// at returns the retained entry at offset; the caller has checked the range.
func (l *retainedLog) at(offset uint64) *felix.Entry {
	if offset < l.firstOffset || offset >= l.nextOffset {
		panic(fmt.Sprintf("retainedLog.at(%d) outside [%d, %d)", offset, l.firstOffset, l.nextOffset))
	}
	i := l.head + int(offset-l.firstOffset)
	if i >= len(l.ring) {
		i -= len(l.ring)
	}
	return &l.ring[i]
}

// full reports whether the log holds lenMax entries: the next append must
// drop the oldest first (retention by count).
func (l *retainedLog) full() bool { return l.count == l.lenMax }

// append adds rec at nextOffset; the caller dropped the oldest entry first
// if the log was full.
func (l *retainedLog) append(rec *felix.Record) uint64 {
	if l.count == l.lenMax {
		panic(fmt.Sprintf("retainedLog.append at %d: the log holds lenMax %d entries", l.nextOffset, l.lenMax))
	}
	if l.count == len(l.ring) {
		l.grow()
	}
	i := l.head + l.count
	if i >= len(l.ring) {
		i -= len(l.ring)
	}
	offset := l.nextOffset
	l.ring[i] = felix.Entry{Offset: offset, Record: *rec}
	l.count++
	l.nextOffset++
	l.check()
	return offset
}

// grow doubles the ring (bounded by lenMax), unrolling it to start at 0.
func (l *retainedLog) grow() {
	n := 2 * len(l.ring)
	if n < ringLenMin {
		n = ringLenMin
	}
	if n > l.lenMax {
		n = l.lenMax
	}
	ring := make([]felix.Entry, n)
	for i := 0; i < l.count; i++ {
		ring[i] = *l.at(l.firstOffset + uint64(i))
	}
	l.ring, l.head = ring, 0
}

// dropOldest drops the oldest entry and returns it; the log holds one.
func (l *retainedLog) dropOldest() felix.Entry {
	if l.count == 0 {
		panic(fmt.Sprintf("retainedLog.dropOldest: empty log at %d", l.nextOffset))
	}
	e := l.ring[l.head]
	l.ring[l.head] = felix.Entry{} // the ring no longer references the record's buffers
	l.head++
	if l.head == len(l.ring) {
		l.head = 0
	}
	l.count--
	l.firstOffset++
	return e
}

func (l *retainedLog) check() {
	if l.nextOffset-l.firstOffset != uint64(l.count) || l.count > l.lenMax || l.count > len(l.ring) {
		panic(fmt.Sprintf("retainedLog: first %d next %d count %d lenMax %d ring %d",
			l.firstOffset, l.nextOffset, l.count, l.lenMax, len(l.ring)))
	}
}
