package artifact

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/felixsim/felixsim/sim/world"
)

// traceFormat names the trace file's format in its header line.
const traceFormat = "felixsim-trace v1"

// TraceLineLenMax caps one line of a trace file when reading.
const TraceLineLenMax = 1 << 12

// TraceEventsMax caps the events a trace file may hold.
const TraceEventsMax = world.TraceEventsMaxDefault

// traceHeader is the trace file's first line.
type traceHeader struct {
	Format string `json:"format"`
	// Events is how many events the run executed; the file holds them all
	// unless Truncated (recording stopped at its cap).
	Events    uint64 `json:"events"`
	TraceHash string `json:"trace_hash"`
	Truncated bool   `json:"truncated"`
}

// traceLine is one event: its index, then TraceEvent's fields; Detail is
// hex, as JSON numbers lose a uint64's low bits in many readers.
type traceLine struct {
	I      int    `json:"i"`
	AtNs   int64  `json:"at_ns"`
	Kind   string `json:"kind"`
	Node   int32  `json:"node"`
	Peer   int32  `json:"peer"`
	Detail string `json:"detail"`
}

// Trace is a trace file's content.
type Trace struct {
	Events    []world.TraceEvent
	Hash      uint64
	Executed  uint64
	Truncated bool
}

// WriteTrace writes a header line and one JSON object per event.
func WriteTrace(w io.Writer, events []world.TraceEvent, hash, executed uint64, truncated bool) error {
	bw := bufio.NewWriter(w)
	h, _ := json.Marshal(traceHeader{Format: traceFormat, Events: executed, TraceHash: fmt.Sprintf("%016x", hash), Truncated: truncated})
	bw.Write(h)
	bw.WriteByte('\n')
	for i, e := range events {
		b, err := json.Marshal(traceLine{I: i, AtNs: e.AtNs, Kind: e.Kind.String(), Node: e.Node, Peer: e.Peer, Detail: fmt.Sprintf("%016x", e.Detail)})
		if err != nil {
			return fmt.Errorf("trace event %d: %w", i, err)
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// ReadTrace reads a trace file; refusals name the file and line.
func ReadTrace(path string) (*Trace, error) {
	f, err := OpenInput(path, "event trace", EventsBytesMax)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := ParseTrace(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ParseTrace reads a trace written by WriteTrace. It refuses a missing or
// malformed header, an event line that is malformed, out of order, of an
// unknown kind or out of range, a file with fewer events than its header
// declares (truncated), and a complete file whose events do not hash to
// the header's hash (corrupt).
func ParseTrace(r io.Reader) (*Trace, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), TraceLineLenMax)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("trace line 1: %w", err)
		}
		return nil, fmt.Errorf("trace refused: empty, want a %q header line", traceFormat)
	}
	t, err := parseTraceHeader(sc.Bytes())
	if err != nil {
		return nil, fmt.Errorf("trace line 1 refused: %w", err)
	}
	line := 1
	for sc.Scan() {
		line++
		if len(t.Events) >= TraceEventsMax || uint64(len(t.Events)) >= t.Executed {
			return nil, fmt.Errorf("trace line %d refused: more events than the header's %d", line, t.Executed)
		}
		e, err := parseTraceLine(sc.Bytes(), len(t.Events), t.Events)
		if err != nil {
			return nil, fmt.Errorf("trace line %d refused: %w", line, err)
		}
		t.Events = append(t.Events, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("trace line %d refused: %w", line+1, err)
	}
	return t, t.checkComplete(line)
}

func parseTraceHeader(b []byte) (*Trace, error) {
	if isModelTrace(b) {
		return nil, fmt.Errorf("this is a model trace (the brokers' abstract steps, `felixsim run --trace-out FILE`; `felixsim check-trace FILE` reads it), " +
			"not an event trace (an artifact's " + EventsFile + ", " + traceFormat + ")")
	}
	var h traceHeader
	if err := strictJSON(b, &h); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if h.Format != traceFormat {
		return nil, fmt.Errorf("header format %q, want %q", h.Format, traceFormat)
	}
	hash, err := strconv.ParseUint(h.TraceHash, 16, 64)
	if err != nil || len(h.TraceHash) != 16 {
		return nil, fmt.Errorf("header trace_hash %q: want 16 hex digits", h.TraceHash)
	}
	return &Trace{Hash: hash, Executed: h.Events, Truncated: h.Truncated}, nil
}

func parseTraceLine(b []byte, i int, prev []world.TraceEvent) (world.TraceEvent, error) {
	var l traceLine
	if err := strictJSON(b, &l); err != nil {
		return world.TraceEvent{}, err
	}
	kind, err := world.ParseEventKind(l.Kind)
	if err != nil {
		return world.TraceEvent{}, err
	}
	detail, err := strconv.ParseUint(l.Detail, 16, 64)
	switch {
	case err != nil || len(l.Detail) != 16:
		return world.TraceEvent{}, fmt.Errorf("detail %q: want 16 hex digits", l.Detail)
	case l.I != i:
		return world.TraceEvent{}, fmt.Errorf("event index %d, want %d", l.I, i)
	case l.AtNs < 0 || (i > 0 && l.AtNs < prev[i-1].AtNs):
		return world.TraceEvent{}, fmt.Errorf("event %d at %d ns: negative or before the previous event", i, l.AtNs)
	case l.Node < -1 || l.Node >= world.NodesMax || l.Peer < -1 || l.Peer >= world.NodesMax:
		return world.TraceEvent{}, fmt.Errorf("event %d node %d peer %d: outside [-1, %d)", i, l.Node, l.Peer, world.NodesMax)
	}
	return world.TraceEvent{AtNs: l.AtNs, Kind: kind, Node: l.Node, Peer: l.Peer, Detail: detail}, nil
}

// checkComplete refuses a trace that holds fewer events than its header
// declares (unless recording was truncated) or that does not hash to it.
func (t *Trace) checkComplete(lines int) error {
	n := uint64(len(t.Events))
	if t.Truncated {
		if n == 0 || n >= t.Executed {
			return fmt.Errorf("trace refused: marked truncated, yet holds %d of %d events", n, t.Executed)
		}
		return nil
	}
	if n != t.Executed {
		return fmt.Errorf("trace refused: truncated after line %d: %d events of the %d its header declares", lines, n, t.Executed)
	}
	if got := world.TraceHashOf(t.Events); got != t.Hash {
		return fmt.Errorf("trace refused: corrupt: its %d events hash to %016x, its header says %016x", n, got, t.Hash)
	}
	return nil
}

// isModelTrace reports whether a first line is a model trace's: an
// object whose one key is "header" (modeltrace's NDJSON header line), or
// a model step (an object with "kind" and "group" but no "format").
func isModelTrace(line []byte) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(line, &obj) != nil {
		return false
	}
	if _, ok := obj["header"]; ok && len(obj) == 1 {
		return true
	}
	_, kind := obj["kind"]
	_, group := obj["group"]
	_, format := obj["format"]
	return kind && group && !format
}

// strictJSON decodes one JSON object, refusing unknown fields and trailing data.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the object")
	}
	return nil
}
