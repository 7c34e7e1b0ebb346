package modeltrace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// NDJSON is a Sink that writes each step as one JSON line (the trace
// export TLC's trace spec is generated from), after a header line
// (WriteHeader) that says what a reader needs to judge the steps, and
// before an end line (End) that says how many steps the trace holds and
// digests every line before it, so that a reader tells a whole trace from
// a cut or altered one. Write errors are kept: Err reports the first, and
// later lines are dropped.
type NDJSON struct {
	w      *bufio.Writer
	err    error
	steps  int
	digest LinesDigest
	ended  bool
}

// TraceFormat names the export format in its header: version 3 (the
// steps of version 2 with the fields the model recomputes: a read's
// start and index, an append's term, an apply's error and retention
// point, a restart's group constants, an operator command's kind; see
// FormatVersions for every version a reader accepts).
const TraceFormat = "felixsim-modeltrace v3"

// Header opens an exported trace: the cluster the steps come from.
type Header struct {
	// Format is TraceFormat (a reader also accepts the older versions).
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

// End closes an exported trace (format version 2 on): the number of steps
// before it and the digest of every line before it (LinesDigest, as 16
// hex digits: JSON numbers lose a uint64's low bits in many readers).
type End struct {
	Steps  int    `json:"steps"`
	Digest string `json:"digest"`
}

// endLine is the JSON form of an end line: an object with the one key
// "end", which no step has.
type endLine struct {
	End *End `json:"end"`
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

// NewNDJSON writes steps to w; call End (or, for a trace without an end
// line, Flush) at the end.
func NewNDJSON(w io.Writer) *NDJSON { return &NDJSON{w: bufio.NewWriter(w)} }

// Step writes s as one line.
func (n *NDJSON) Step(s *Step) {
	if n.ended {
		panic(fmt.Sprintf("modeltrace: step after the end line (%d steps)", n.steps))
	}
	n.steps++
	n.writeLine(s)
}

func (n *NDJSON) writeLine(v any) {
	if n.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err == nil {
		n.digest.Add(b)
		b = append(b, '\n')
		_, err = n.w.Write(b)
	}
	n.err = err
}

// End writes the end line (the step count and the digest of every line
// before it), flushes, and returns the first write error. No step may
// follow it.
func (n *NDJSON) End() error {
	if n.ended {
		panic("modeltrace: a second end line")
	}
	n.ended = true
	if n.err == nil {
		b, err := json.Marshal(endLine{End: &End{Steps: n.steps, Digest: fmt.Sprintf("%016x", n.digest.Sum())}})
		if err == nil {
			_, err = n.w.Write(append(b, '\n'))
		}
		n.err = err
	}
	return n.Flush()
}

// Flush writes what is buffered and returns the first error.
func (n *NDJSON) Flush() error {
	if n.err == nil {
		n.err = n.w.Flush()
	}
	return n.err
}
