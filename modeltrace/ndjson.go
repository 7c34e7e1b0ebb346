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
// export TLC's trace spec is generated from). Write errors are kept: Err
// reports the first, and later steps are dropped.
type NDJSON struct {
	w   *bufio.Writer
	err error
}

// NewNDJSON writes steps to w; call Flush at the end.
func NewNDJSON(w io.Writer) *NDJSON { return &NDJSON{w: bufio.NewWriter(w)} }

// Step writes s as one line.
func (n *NDJSON) Step(s *Step) {
	if n.err != nil {
		return
	}
	b, err := json.Marshal(s)
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

// ReadNDJSON reads a trace written by NDJSON, strictly: each line is one
// JSON object holding only a step's fields, of a known step kind, and
// nothing after it; a line that is not is an error naming it.
func ReadNDJSON(r io.Reader) ([]Step, error) {
	var out []Step
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), ndjsonLineMax)
	for line := 1; sc.Scan(); line++ {
		s, err := parseStepLine(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("trace line %d refused: %w", line, err)
		}
		out = append(out, s)
	}
	return out, sc.Err()
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
