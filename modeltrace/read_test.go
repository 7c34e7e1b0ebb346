package modeltrace

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// versionExamples are checked-in traces of every format version a reader
// accepts (testdata/versions), each of `felixsim run --seed 1 --duration
// 100ms --trace-out F`: v0 written without a header (the v1 file less its
// header line), v1 by felixsim at 9e2c8bb, v2 with its end line (the same
// 164 steps), v3 with the fields the model recomputes (its 164 steps
// carry them: Persist's term, Apply's first offset, Restart's group
// constants).
var versionExamples = []string{"v0-headerless.ndjson", "v1.ndjson", "v2.ndjson", "v3.ndjson"}

// versionSteps is each example's step count.
var versionSteps = []int{164, 164, 164, 164}

// TestReadsEveryVersion: each version's example reads, with its version;
// only the current one is whole, the older ones are incomplete (v0 and v1
// have no end line) or, for v2, whole; none is altered; v0 to v2 hold the
// same steps.
func TestReadsEveryVersion(t *testing.T) {
	if len(versionExamples) != len(FormatVersions)+1 {
		t.Fatalf("%d examples for %d versions and the headerless one", len(versionExamples), len(FormatVersions))
	}
	var first []Step
	for v, name := range versionExamples {
		b, err := os.ReadFile(filepath.Join("testdata", "versions", name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Read(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		whole := v >= 2
		if got.Version != v || (got.Incomplete == "") != whole || got.Altered || len(got.Steps) != versionSteps[v] || (got.Header == nil) != (v == 0) {
			t.Errorf("%s: version %d, %d steps, incomplete %q, altered %t; want version %d, %d steps, whole %t",
				name, got.Version, len(got.Steps), got.Incomplete, got.Altered, v, versionSteps[v], whole)
		}
		switch {
		case first == nil:
			first = got.Steps
		case v <= 2 && !sameSteps(first, got.Steps):
			t.Errorf("%s holds other steps than %s", name, versionExamples[0])
		}
	}
}

func sameSteps(a, b []Step) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].String() != b[i].String() {
			return false
		}
	}
	return true
}

// TestCutTraceIsIncomplete: a whole trace cut at any line boundary (head
// -n k) reads as incomplete, cut short, not altered; a step changed, a
// step dropped or the count changed under a kept end line reads as
// altered; the whole trace reads whole.
func TestCutTraceIsIncomplete(t *testing.T) {
	whole := writeTrace(t, sampleTrace())
	lines := bytes.Count(whole, []byte("\n"))
	for k := 0; k <= lines; k++ {
		got, err := Read(bytes.NewReader(cutLines(whole, k)))
		if err != nil {
			t.Fatalf("first %d lines: %v", k, err)
		}
		switch {
		case k == lines && got.Incomplete != "":
			t.Errorf("the whole trace reads as incomplete: %s", got.Incomplete)
		case k < lines && (got.Incomplete == "" || got.Altered || (k > 1 && !strings.Contains(got.Incomplete, "cut short"))):
			t.Errorf("first %d of %d lines: incomplete %q, altered %t; want cut short", k, lines, got.Incomplete, got.Altered)
		}
	}
	text := string(whole)
	for name, altered := range map[string]string{
		"a step's field changed": strings.Replace(text, `"offset":4`, `"offset":5`, 1),
		"a step dropped":         strings.Replace(text, `{"kind":"Commit","broker":1,"group":2,"index":3}`+"\n", "", 1),
		"two steps swapped":      swapLines(text, 2, 3),
		"the header changed":     strings.Replace(text, `"brokers":3`, `"brokers":5`, 1),
		"the count changed":      strings.Replace(text, `{"end":{"steps":18,`, `{"end":{"steps":17,`, 1),
	} {
		if altered == text {
			t.Fatalf("%s: the edit changed nothing", name)
		}
		got, err := Read(strings.NewReader(altered))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !got.Altered || got.Incomplete == "" {
			t.Errorf("%s: incomplete %q, altered %t; want altered", name, got.Incomplete, got.Altered)
		}
	}
}

// swapLines swaps lines i and j (from 0) of text.
func swapLines(text string, i, j int) string {
	ls := strings.Split(text, "\n")
	ls[i], ls[j] = ls[j], ls[i]
	return strings.Join(ls, "\n")
}

// TestReadRefusesMisplacedLines: an end line must be the last line, hold
// only "end" with a count and 16 hex digits, and belong to a version
// that has one; a header of an unknown version is refused naming the
// versions accepted.
func TestReadRefusesMisplacedLines(t *testing.T) {
	head := `{"header":{"format":"felixsim-modeltrace v2","brokers":3}}` + "\n"
	step := `{"kind":"Commit","broker":1,"group":2,"index":3}` + "\n"
	for name, c := range map[string]struct{ text, cause string }{
		"a line after the end":        {head + `{"end":{"steps":0,"digest":"0000000000000000"}}` + "\n" + step, "line 3 refused: a line after the end line"},
		"an end line in v1":           {strings.Replace(head, "v2", "v1", 1) + `{"end":{"steps":0,"digest":"0000000000000000"}}` + "\n", "format version 1, which has none"},
		"an end line without header":  {step + `{"end":{"steps":1,"digest":"0000000000000000"}}` + "\n", "format version 0, which has none"},
		"an end line with more":       {head + `{"end":{"steps":0,"digest":"0000000000000000"},"x":1}` + "\n", "must hold only"},
		"an end line's digest in dec": {head + `{"end":{"steps":0,"digest":"12"}}` + "\n", "16 hex digits"},
		"an end line's unknown field": {head + `{"end":{"steps":0,"digest":"0000000000000000","more":1}}` + "\n", "end line"},
		"a header of version 9":       {strings.Replace(head, "v2", "v9", 1), "want one of felixsim-modeltrace v1, felixsim-modeltrace v2"},
	} {
		_, err := Read(strings.NewReader(c.text))
		if err == nil || !strings.Contains(err.Error(), c.cause) {
			t.Errorf("%s: %v; want %q", name, err, c.cause)
		}
	}
}

// TestReadNamesOtherFormats: given another of felixsim's files, the reader
// says what it was given instead of failing on a field: the event trace
// (run --out's events), a history, a plan, a report.
func TestReadNamesOtherFormats(t *testing.T) {
	for name, c := range map[string]struct{ text, cause string }{
		"event trace": {`{"format":"felixsim-trace v1","events":6328,"trace_hash":"ea62e3ef2ff33fae","truncated":false}` + "\n" + `{"i":0,"at_ns":0,"kind":"boot","node":0,"peer":-1,"detail":"0000000000000001"}` + "\n",
			`this is the event trace (format "felixsim-trace v1"`},
		"history": {"felixsim-history v1\n{\"id\":1}\n", `this is a file of format "felixsim-history v1"`},
		"plan":    {"felixsim-plan v3\n# felixsim-revision: unknown\n", `this is a file of format "felixsim-plan v3"`},
		"report":  {"{\n  \"format\": \"felixsim-report v1\",\n", "a JSON document spread over lines"},
	} {
		_, err := Read(strings.NewReader(c.text))
		if err == nil || !strings.Contains(err.Error(), c.cause) || !strings.Contains(err.Error(), "not a model trace") {
			t.Errorf("%s: %v; want %q", name, err, c.cause)
		}
	}
}

// TestReadRefusesTooLarge: a trace past its size cap is refused naming
// the cap, having read one byte past it; one at the cap is read (the cap
// is lowered to 1 MiB here: the real one, TraceBytesMax, is 4 GiB), and
// a reader stops soon after the cap, not at the end of a larger file.
func TestReadRefusesTooLarge(t *testing.T) {
	line := []byte(`{"kind":"Commit","broker":1,"group":2,"index":3}` + "\n")
	const capBytes = 1 << 20
	at := &repeatReader{line: line, left: capBytes / int64(len(line))}
	if _, err := read(at, capBytes); err != nil {
		t.Fatalf("a trace within the cap: %v", err)
	}
	past := &repeatReader{line: line, left: 100 * capBytes / int64(len(line))}
	_, err := read(past, capBytes)
	if err == nil || !strings.Contains(err.Error(), "TraceBytesMax (1048576 bytes)") {
		t.Fatalf("%v", err)
	}
	if past.left < 98*capBytes/int64(len(line)) {
		t.Fatalf("read %d lines of a trace refused for its size", 100*capBytes/int64(len(line))-past.left)
	}
}

// repeatReader yields line left times.
type repeatReader struct {
	line []byte
	left int64
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && r.left > 0 {
		k := copy(p[n:], r.line[r.off:])
		n += k
		r.off += k
		if r.off == len(r.line) {
			r.off = 0
			r.left--
		}
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}
