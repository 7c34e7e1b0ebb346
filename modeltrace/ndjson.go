package modeltrace

import (
	"bufio"
	"encoding/json"
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

// ReadNDJSON reads a trace written by NDJSON; a malformed line is an error
// naming it.
func ReadNDJSON(r io.Reader) ([]Step, error) {
	var out []Step
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for line := 1; sc.Scan(); line++ {
		var s Step
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("trace line %d refused: %w", line, err)
		}
		if s.Kind <= kindInvalid || s.Kind >= kindEnd {
			return nil, fmt.Errorf("trace line %d refused: step kind %d is not a step kind", line, uint8(s.Kind))
		}
		out = append(out, s)
	}
	return out, sc.Err()
}
