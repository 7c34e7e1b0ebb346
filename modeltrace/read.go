package modeltrace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// FormatVersions are the export formats a reader accepts, oldest first:
// version 1 has a header and no end line; version 2 ends with an end
// line; version 3 (TraceFormat) adds ReadStart steps, StateRead's read
// index and request, Persist's term, Apply's error code and first
// retained offset, Restart's RetainedMax and Finalized, scopes' first
// offsets, and the operator commands' own kinds (retain, feature,
// incarnation) where version 2 said "operator". A trace without a header
// (written before headers) is version 0.
var FormatVersions = []string{"felixsim-modeltrace v1", "felixsim-modeltrace v2", TraceFormat}

// Trace is an exported trace as read back.
type Trace struct {
	// Header is nil for a trace written without one (an older felixsim's).
	Header *Header
	Steps  []Step
	// Version is the format's version (FormatVersions[Version-1]); 0 for
	// a trace without a header.
	Version int
	// Incomplete says why the trace is not known to be whole: it has no
	// end line (cut short, or of a version without one), or its end line's
	// step count or digest differs from the lines before it; "" when the
	// end line checks out.
	Incomplete string
	// Altered is set when an end line is there but does not match the
	// lines before it: the file is not what was written, so not even a
	// rejected step of it is the broker's.
	Altered bool
}

// ndjsonLineMax is the longest trace line a reader accepts, in bytes: a
// Restart lists a broker's whole stored log, a few dozen bytes an entry.
const ndjsonLineMax = 64 << 20

// TraceBytesMax caps the size of a trace a reader accepts, in bytes (a
// default 60 s run's trace is about 5 MB; a 6,000 s run's a few hundred).
const TraceBytesMax = 4 << 30

// HeaderBrokersMax bounds the broker count a trace header may claim.
const HeaderBrokersMax = 1 << 10

// ReadNDJSON reads the steps of a trace written by NDJSON, whole or not
// (its header, if any, checked and dropped; its end line, if any, checked
// for form only), strictly: each other line is one JSON object holding
// only a step's fields, of a known step kind, and nothing after it; a line
// that is not is an error naming it.
func ReadNDJSON(r io.Reader) ([]Step, error) {
	t, err := Read(r)
	if err != nil {
		return nil, err
	}
	return t.Steps, nil
}

// Read reads an exported trace: its header (nil for a trace written
// without one), its steps, and whether its end line shows it whole. A
// malformed line, a header that is not the first line, a header of an
// unknown format or with no brokers, a line after the end line, or a
// file past TraceBytesMax is an error naming the line; a file of another
// of felixsim's formats (the event trace, a history, a plan) is refused
// naming what it is.
func Read(r io.Reader) (*Trace, error) { return read(r, TraceBytesMax) }

// read is Read with a size cap of bytesMax.
func read(r io.Reader, bytesMax int64) (*Trace, error) {
	cr := &countingReader{r: r, max: bytesMax}
	sc := bufio.NewScanner(cr)
	sc.Buffer(make([]byte, 0, 64<<10), ndjsonLineMax)
	t := &Trace{}
	var digest LinesDigest
	var end *End
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if cr.n > bytesMax {
			break
		}
		if end != nil {
			return nil, fmt.Errorf("trace line %d refused: a line after the end line (line %d)", line, line-1)
		}
		if e, isEnd, err := readEnd(b, line, t.Version); isEnd {
			if err != nil {
				return nil, err
			}
			end = e
			continue
		}
		digest.Add(b)
		if h, v, isHeader, err := readHeader(b, line); isHeader {
			if err != nil {
				return nil, err
			}
			t.Header, t.Version = h, v
			continue
		}
		if line == 1 {
			if what := otherFormat(b); what != "" {
				return nil, fmt.Errorf("trace line 1 refused: this is %s, not a model trace (%s, which felixsim run --trace-out writes)", what, TraceFormat)
			}
		}
		s, err := parseStepLine(b)
		if err != nil {
			return nil, fmt.Errorf("trace line %d refused: %w", line, err)
		}
		t.Steps = append(t.Steps, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("trace refused after line %d: %w", line, err)
	}
	if cr.n > bytesMax {
		return nil, fmt.Errorf("trace refused: larger than TraceBytesMax (%d bytes)", bytesMax)
	}
	t.complete(end, digest.Sum())
	return t, nil
}

// complete sets Incomplete and Altered from the end line (nil: none).
func (t *Trace) complete(end *End, sum uint64) {
	switch {
	case end == nil && t.Version == 0:
		t.Incomplete = "no end line: a trace without a header (an older felixsim's) has none, so it is not known to be whole"
	case end == nil && t.Version < 2:
		t.Incomplete = fmt.Sprintf("no end line: format %q has none, so the trace is not known to be whole", FormatVersions[t.Version-1])
	case end == nil:
		t.Incomplete = fmt.Sprintf("no end line after %d steps: the trace was cut short", len(t.Steps))
	case end.Steps != len(t.Steps):
		t.Incomplete, t.Altered = fmt.Sprintf("the end line counts %d steps, but %d precede it", end.Steps, len(t.Steps)), true
	case end.Digest != fmt.Sprintf("%016x", sum):
		t.Incomplete, t.Altered = fmt.Sprintf("the lines before the end line digest to %016x, but the end line says %s: the file was altered", sum, end.Digest), true
	}
}

// countingReader counts the bytes read through it and stops at one past
// max.
type countingReader struct {
	r      io.Reader
	n, max int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.n > c.max {
		return 0, io.EOF
	}
	if rest := c.max + 1 - c.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	k, err := c.r.Read(p)
	c.n += int64(k)
	return k, err
}

// probeKeys decodes a line as a JSON object's top-level keys (nil if it
// is not one).
func probeKeys(b []byte) map[string]json.RawMessage {
	var probe map[string]json.RawMessage
	if json.Unmarshal(b, &probe) != nil {
		return nil
	}
	return probe
}

// readHeader reads line n as a header line if it is one (an object whose
// one key is "header"); isHeader is false for any other line. v is the
// format's version.
func readHeader(b []byte, n int) (h *Header, v int, isHeader bool, err error) {
	probe := probeKeys(b)
	if probe["header"] == nil {
		return nil, 0, false, nil
	}
	if n != 1 || len(probe) != 1 {
		return nil, 0, true, fmt.Errorf("trace line %d refused: a header must be the first line and hold only \"header\"", n)
	}
	var hl headerLine
	if err := strictDecode(b, &hl); err != nil || hl.Header == nil {
		return nil, 0, true, fmt.Errorf("trace line %d refused: header: %v", n, err)
	}
	h = hl.Header
	for i, f := range FormatVersions {
		if h.Format == f {
			v = i + 1
		}
	}
	switch {
	case v == 0:
		return nil, 0, true, fmt.Errorf("trace line %d refused: header format %q, want one of %s", n, h.Format, strings.Join(FormatVersions, ", "))
	case h.Brokers < 1 || h.Brokers > HeaderBrokersMax:
		return nil, 0, true, fmt.Errorf("trace line %d refused: header brokers %d, want 1..%d", n, h.Brokers, HeaderBrokersMax)
	}
	return h, v, true, nil
}

// readEnd reads line n as an end line if it is one (an object whose one
// key is "end"); version is the trace's format version.
func readEnd(b []byte, n, version int) (e *End, isEnd bool, err error) {
	probe := probeKeys(b)
	if probe["end"] == nil {
		return nil, false, nil
	}
	var el endLine
	switch {
	case version < 2:
		return nil, true, fmt.Errorf("trace line %d refused: an end line in a trace of format version %d, which has none", n, version)
	case len(probe) != 1:
		return nil, true, fmt.Errorf("trace line %d refused: an end line must hold only \"end\"", n)
	case strictDecode(b, &el) != nil || el.End == nil:
		return nil, true, fmt.Errorf("trace line %d refused: end line: want {\"end\":{\"steps\":N,\"digest\":\"16 hex digits\"}}", n)
	}
	if _, err := strconv.ParseUint(el.End.Digest, 16, 64); err != nil || len(el.End.Digest) != 16 || el.End.Steps < 0 {
		return nil, true, fmt.Errorf("trace line %d refused: end line steps %d digest %q: want a count and 16 hex digits", n, el.End.Steps, el.End.Digest)
	}
	return el.End, true, nil
}

// otherFormat names the felixsim file a first line belongs to when it is
// not a model trace's ("" when it names none): the event trace and the
// report (a JSON object with "format"), the history and the plan (a text
// line "felixsim-… vN"), or a JSON document spread over lines.
func otherFormat(b []byte) string {
	if probe := probeKeys(b); probe != nil {
		var f string
		if raw := probe["format"]; raw != nil && json.Unmarshal(raw, &f) == nil {
			if strings.HasPrefix(f, "felixsim-trace ") {
				return fmt.Sprintf("the event trace (format %q: the events felixsim run --out DIR keeps, for replay)", f)
			}
			return fmt.Sprintf("a file of format %q", f)
		}
		return ""
	}
	if s := strings.TrimSpace(string(b)); strings.HasPrefix(s, "felixsim-") {
		return fmt.Sprintf("a file of format %q", strings.Join(strings.Fields(s)[:min(2, len(strings.Fields(s)))], " "))
	}
	if s := strings.TrimSpace(string(b)); s == "{" || s == "[" {
		return "a JSON document spread over lines (such as a run's report.json)"
	}
	return ""
}

// strictDecode decodes one JSON value into v, refusing unknown fields.
func strictDecode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
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
