package sweep

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzReadReport: whatever the bytes, ReadReport returns a report or an
// error naming the file and a line; never a panic. A report it accepts
// writes back out and reads back equal (the reader accepts only what the
// writer can say). The corpus under testdata/fuzz/FuzzReadReport runs as
// tests on every `go test`.
func FuzzReadReport(f *testing.F) {
	f.Add([]byte(encode(f, sampleReport())))
	f.Add([]byte("{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := ReadReport("f.json", bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json:") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		var b bytes.Buffer
		if err := rep.WriteJSON(&b); err != nil {
			t.Fatalf("accepted report does not encode: %v", err)
		}
		back, err := ReadReport("back.json", &b)
		if err != nil {
			t.Fatalf("accepted report, written out, is refused: %v\n%s", err, b.String())
		}
		if !back.Equal(rep) || back.Seconds != rep.Seconds || back.CPUSeconds != rep.CPUSeconds || back.Jobs != rep.Jobs {
			t.Fatalf("round trip changed the report: %+v vs %+v", back, rep)
		}
	})
}

// TestFuzzCorpusVerdicts: the kept corpus holds reports the reader must
// accept (so the fuzz target's round trip runs on them) and ones it must
// refuse; each file's verdict is fixed here.
func TestFuzzCorpusVerdicts(t *testing.T) {
	accept := map[string]bool{"valid_two_failures": true, "unicode_message": true, "no_failures_whole": true,
		"open_range_incomplete": true, "truncated_mid_failure": false, "duplicate_key": false, "nested_garbage": false}
	for name, want := range accept {
		raw, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzReadReport", name))
		if err != nil {
			t.Fatal(err)
		}
		body, ok := strings.CutPrefix(string(raw), "go test fuzz v1\n[]byte(")
		body, ok2 := strings.CutSuffix(body, ")\n")
		text, err := strconv.Unquote(body)
		if !ok || !ok2 || err != nil {
			t.Fatalf("%s: not a corpus file: %v", name, err)
		}
		_, err = ReadReport(name, strings.NewReader(text))
		if (err == nil) != want {
			t.Errorf("%s: accepted=%v, want %v (%v)", name, err == nil, want, err)
		}
	}
}
