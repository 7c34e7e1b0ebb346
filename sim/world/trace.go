package world

import (
	"bufio"
	"fmt"
	"io"
)

// TraceEvent is one executed event as the trace records it: what, where, when.
type TraceEvent struct {
	AtNs   int64     // virtual time it executed
	Kind   EventKind // what happened
	Node   int32     // where: the node it happened on (receiver), -1 for none
	Peer   int32     // the sender of a message, -1 otherwise
	Detail uint64    // a digest of the particulars (message digest, timer ID, fault digest...)
}

// String renders the event on one line.
func (e TraceEvent) String() string {
	if e.Kind == EvDrop {
		return fmt.Sprintf("t=%d %s node=%d peer=%d reason=%s detail=%016x", e.AtNs, e.Kind, e.Node, e.Peer, DropReason(e), e.Detail)
	}
	return fmt.Sprintf("t=%d %s node=%d peer=%d detail=%016x", e.AtNs, e.Kind, e.Node, e.Peer, e.Detail)
}

// TraceEventsMaxDefault caps a recorded trace when Config.TraceEventsMax is 0.
// Overflow policy: stop recording (the hash still covers every event) and
// mark the trace truncated.
const TraceEventsMaxDefault = 1 << 20

// tracer folds executed events into a running 64-bit hash and optionally
// records them.
type tracer struct {
	hash      uint64
	count     uint64
	record    bool
	eventsMax int
	events    []TraceEvent
	truncated bool
	// byNode counts the events by node (index node+1: 0 is the harness's
	// events, node -1) and kind; nil counts nothing.
	byNode []EventKindCounts
}

// EventKindCounts counts executed events by kind; index it with an EventKind.
type EventKindCounts [evKindCount]uint64

// Add adds o's counts to c.
func (c *EventKindCounts) Add(o EventKindCounts) {
	for k := range c {
		c[k] += o[k]
	}
}

// Map names every kind counted at least once, for reports.
func (c EventKindCounts) Map() map[string]uint64 {
	m := map[string]uint64{}
	for k := EventKind(1); k < evKindCount; k++ {
		if c[k] > 0 {
			m[k.String()] = c[k]
		}
	}
	return m
}

const (
	// TraceHashInit is the trace hash before any event (FNV-1a's offset
	// basis); a fault's digest starts from it too.
	TraceHashInit  = 0xcbf29ce484222325
	traceHashPrime = 0x100000001b3
)

// MixWord folds one 64-bit word into h (the trace hash's step, which a
// fault's digest takes too): FNV-1a over the word, then a shift
// so that high bits feed back into low ones.
func MixWord(h, v uint64) uint64 {
	h ^= v
	h *= traceHashPrime
	return h ^ (h >> 29)
}

func (t *tracer) add(e TraceEvent) {
	h := MixWord(t.hash, uint64(e.AtNs))
	h = MixWord(h, uint64(e.Kind)|uint64(uint32(e.Node))<<8|uint64(uint32(e.Peer))<<40)
	t.hash = MixWord(h, e.Detail)
	t.count++
	if i := int(e.Node) + 1; i >= 0 && i < len(t.byNode) && e.Kind < evKindCount {
		t.byNode[i][e.Kind]++
	}
	if !t.record {
		return
	}
	if len(t.events) >= t.eventsMax {
		t.truncated = true
		return
	}
	t.events = append(t.events, e)
}

// TraceHashOf is the trace hash World.TraceHash reports after executing
// exactly these events, so a saved trace can be checked against its hash.
func TraceHashOf(events []TraceEvent) uint64 {
	t := tracer{hash: TraceHashInit}
	for _, e := range events {
		t.add(e)
	}
	return t.hash
}

// ValidEventKind reports whether k names an event kind.
func ValidEventKind(k EventKind) bool { return k > evInvalid && k < evKindCount }

// ParseEventKind reads an event kind's name as String spells it.
func ParseEventKind(s string) (EventKind, error) {
	for k := EventKind(1); k < evKindCount; k++ {
		if eventKindNames[k] == s {
			return k, nil
		}
	}
	return evInvalid, fmt.Errorf("sim: event kind %q refused: unknown", s)
}

// WriteTrace writes events one per line.
func WriteTrace(w io.Writer, events []TraceEvent) error {
	bw := bufio.NewWriter(w)
	for i, e := range events {
		if _, err := fmt.Fprintf(bw, "%d %s\n", i, e); err != nil {
			return fmt.Errorf("sim: write trace event %d: %w", i, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("sim: write trace: %w", err)
	}
	return nil
}

// Divergence describes where two traces first differ. When one trace is a
// prefix of the other, the shorter side's event is the zero TraceEvent and
// its Missing flag is set.
type Divergence struct {
	Index          int        // first index where the traces differ (or the shorter length)
	A, B           TraceEvent // the two events at Index
	MissingA       bool       // trace A ended before Index
	MissingB       bool       // trace B ended before Index
	LenA, LenB     int        // the traces' lengths
	IdenticalTrace bool       // no difference at all
}

// String explains the divergence for a test failure message.
func (d Divergence) String() string {
	switch {
	case d.IdenticalTrace:
		return fmt.Sprintf("traces identical (%d events)", d.LenA)
	case d.MissingA:
		return fmt.Sprintf("first divergence at event %d: A ended (%d events), B has %s", d.Index, d.LenA, d.B)
	case d.MissingB:
		return fmt.Sprintf("first divergence at event %d: B ended (%d events), A has %s", d.Index, d.LenB, d.A)
	}
	return fmt.Sprintf("first divergence at event %d:\n  A: %s\n  B: %s", d.Index, d.A, d.B)
}

// FirstDivergence compares two recorded traces and returns the first index
// at which they differ.
func FirstDivergence(a, b []TraceEvent) Divergence {
	d := Divergence{LenA: len(a), LenB: len(b)}
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			d.Index, d.A, d.B = i, a[i], b[i]
			return d
		}
	}
	d.Index = n
	switch {
	case len(a) == len(b):
		d.IdenticalTrace = true
	case len(a) < len(b):
		d.MissingA, d.B = true, b[n]
	default:
		d.MissingB, d.A = true, a[n]
	}
	return d
}
