package modeltrace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// NDJSON is a Sink that writes each step as one JSON line (the trace
// export TLC's trace spec is generated from), after a header line
// (WriteHeader) that says what a reader needs to judge the steps. Write
// errors are kept: Err reports the first, and later steps are dropped.
type NDJSON struct {
	w     *bufio.Writer
	err   error
	steps int
}

// TraceFormat names the export format in its header.
const TraceFormat = "felixsim-modeltrace v1"

// Header opens an exported trace: the cluster the steps come from.
type Header struct {
	// Format is TraceFormat.
	Format string `json:"format"`
	// Brokers is the cluster's size at boot (raft ids 1..Brokers); a
	// replaced broker's new id is larger.
	Brokers int `json:"brokers"`
}

// headerLine is the JSON form of a header line: an object with the one
// key "header", which no step has.
type headerLine struct {
	Header *Header `json:"header"`
}

// WriteHeader writes h as the trace's first line; it must come before any
// step (a programmer error otherwise).
func (n *NDJSON) WriteHeader(h Header) {
	if n.steps > 0 {
		panic(fmt.Sprintf("modeltrace: header after %d steps", n.steps))
	}
	h.Format = TraceFormat
	n.writeLine(headerLine{Header: &h})
}

// NewNDJSON writes steps to w; call Flush at the end.
func NewNDJSON(w io.Writer) *NDJSON { return &NDJSON{w: bufio.NewWriter(w)} }

// Step writes s as one line.
func (n *NDJSON) Step(s *Step) {
	n.steps++
	n.writeLine(s)
}

func (n *NDJSON) writeLine(v any) {
	if n.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err == nil {
		b = append(b, '\n')
		_, err = n.w.Write(b)
	}
	n.err = err
}

// Flush writes what is buffered and returns the first error.
func (n *NDJSON) Flush() error {
	if n.err == nil {
		n.err = n.w.Flush()
	}
	return n.err
}

// ndjsonLineMax is the longest trace line ReadNDJSON accepts, in bytes: a
// Restart lists a broker's whole stored log, a few dozen bytes an entry.
const ndjsonLineMax = 64 << 20

// ReadNDJSON reads a trace written by NDJSON, its header (if it has one)
// checked and dropped, strictly: each other line is one JSON object holding
// only a step's fields, of a known step kind, and nothing after it; a line
// that is not is an error naming it.
func ReadNDJSON(r io.Reader) ([]Step, error) {
	_, steps, err := ReadTrace(r)
	return steps, err
}

// ReadTrace reads a trace written by NDJSON: its header (nil for a trace
// written without one) and its steps. A malformed line, a header that is
// not the first line, or a header of another format or with no brokers is
// an error naming the line.
func ReadTrace(r io.Reader) (*Header, []Step, error) {
	var out []Step
	var head *Header
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), ndjsonLineMax)
	for line := 1; sc.Scan(); line++ {
		if h, isHeader, err := readHeader(sc.Bytes(), line); isHeader {
			if err != nil {
				return nil, nil, err
			}
			head = h
			continue
		}
		s, err := parseStepLine(sc.Bytes())
		if err != nil {
			return nil, nil, fmt.Errorf("trace line %d refused: %w", line, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("trace refused after line %d: %w", len(out), err)
	}
	return head, out, nil
}

// HeaderBrokersMax bounds the broker count a trace header may claim.
const HeaderBrokersMax = 1 << 10

// readHeader reads line n as a header line if it is one (an object whose
// one key is "header"); isHeader is false for a step line.
func readHeader(b []byte, n int) (h *Header, isHeader bool, err error) {
	var probe map[string]json.RawMessage
	if json.Unmarshal(b, &probe) != nil || probe["header"] == nil {
		return nil, false, nil
	}
	if n != 1 || len(probe) != 1 {
		return nil, true, fmt.Errorf("trace line %d refused: a header must be the first line and hold only \"header\"", n)
	}
	var hl headerLine
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&hl); err != nil || hl.Header == nil {
		return nil, true, fmt.Errorf("trace line %d refused: header: %v", n, err)
	}
	switch h := hl.Header; {
	case h.Format != TraceFormat:
		return nil, true, fmt.Errorf("trace line %d refused: header format %q, want %q", n, h.Format, TraceFormat)
	case h.Brokers < 1 || h.Brokers > HeaderBrokersMax:
		return nil, true, fmt.Errorf("trace line %d refused: header brokers %d, want 1..%d", n, h.Brokers, HeaderBrokersMax)
	}
	return hl.Header, true, nil
}

// parseStepLine decodes one line into a step.
func parseStepLine(b []byte) (Step, error) {
	var s Step
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return Step{}, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return Step{}, fmt.Errorf("data after the step's object")
	}
	if s.Kind <= kindInvalid || s.Kind >= kindEnd {
		return Step{}, fmt.Errorf("step kind %d is not a step kind", uint8(s.Kind))
	}
	for _, w := range []*Write{s.Asked, s.Proposed} {
		if w != nil && (w.Kind <= commitKindInvalid || w.Kind >= commitKindEnd) {
			return Step{}, fmt.Errorf("a write without a commit kind")
		}
	}
	if s.Change != nil && !s.Change.Type.Valid() {
		return Step{}, fmt.Errorf("a membership change without a change type")
	}
	return s, nil
}
