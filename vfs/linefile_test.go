package vfs

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lineFileOf is a LineFile in a test directory holding lines (each
// appended with its newline), flushed.
func lineFileOf(t *testing.T, lines ...string) *LineFile {
	t.Helper()
	l := NewLineFile("test spill", t.TempDir(), "lines-*.txt", 16, 1<<10)
	t.Cleanup(func() { l.Close() })
	for _, s := range lines {
		if err := l.Append([]byte(s + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	return l
}

// scanAll is every line Scan gives, with its number.
func scanAll(l *LineFile) ([]string, error) {
	var got []string
	err := l.Scan(func(n int, line []byte) error {
		if n != len(got)+1 {
			return io.ErrUnexpectedEOF
		}
		got = append(got, string(line))
		return nil
	})
	return got, err
}

// TestLineFileReadsBackWhatWasWritten: lines longer than the write buffer
// and empty ones read back in order, numbered from 1, as often as asked,
// with more appended between reads; a file never made holds none, and the
// scratch file leaves nothing in its directory.
func TestLineFileReadsBackWhatWasWritten(t *testing.T) {
	long := strings.Repeat("x", 100) // past the 16-byte buffer
	l := lineFileOf(t, "a", "", long, "b c")
	for round := 0; round < 2; round++ {
		got, err := scanAll(l)
		if want := []string{"a", "", long, "b c"}; err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("round %d: %q (%v), want %q", round, got, err, want)
		}
	}
	if err := l.Append([]byte("d\n")); err != nil {
		t.Fatal(err)
	}
	if got, err := scanAll(l); err != nil || len(got) != 5 || got[4] != "d" || l.Lines() != 5 {
		t.Fatalf("after one more: %q (%v), %d lines", got, err, l.Lines())
	}
	if entries, _ := os.ReadDir(l.dir); len(entries) != 0 {
		t.Fatalf("the scratch file is left in its directory: %v", entries)
	}
	empty := NewLineFile("test spill", t.TempDir(), "lines-*.txt", 16, 1<<10)
	if got, err := scanAll(empty); err != nil || len(got) != 0 || empty.Made() {
		t.Fatalf("a file never made: %q (%v), made %v", got, err, empty.Made())
	}
}

// TestLineFileCountsItsLines: a file cut at a line boundary, cut inside a
// line, or given a line behind the writer's back reads back as an error
// naming the count or the line, never as fewer, more or cut lines; so
// does a read after Close. Without the checks the three would read back
// as three lines, as four with the last one short, and as five.
func TestLineFileCountsItsLines(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(f File, size int64) error
		want string
	}{
		{"cut at a line boundary", func(f File, size int64) error { return f.Truncate(size - 2) }, "holds 3 lines, 4 were written"},
		{"cut inside a line", func(f File, size int64) error { return f.Truncate(size - 1) }, "ends inside a line"},
		{"a line added", func(f File, size int64) error {
			_, err := f.(io.WriterAt).WriteAt([]byte("e\n"), size)
			return err
		}, "line 5: past the 4 lines written"},
	} {
		l := lineFileOf(t, "a", "b", "c", "d")
		size, err := l.File().Size()
		if err != nil {
			t.Fatal(err)
		}
		if err := tc.edit(l.File(), size); err != nil {
			t.Fatal(err)
		}
		got, err := scanAll(l)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "test spill") {
			t.Fatalf("%s: %q (%v), want an error saying %q", tc.name, got, err, tc.want)
		}
	}
	l := lineFileOf(t, "a")
	l.Close()
	if _, err := scanAll(l); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("a read after close: %v", err)
	}
}

// TestLineFileFailureSticks: a directory that does not exist, a line
// without its newline, a line past the read cap and a caller's own
// refusal are each an error that every later call returns, naming what
// was refused.
func TestLineFileFailureSticks(t *testing.T) {
	gone := NewLineFile("test spill", filepath.Join(t.TempDir(), "gone"), "lines-*.txt", 16, 1<<10)
	if err := gone.Append([]byte("a\n")); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("a missing directory: %v", err)
	}
	if _, err := scanAll(gone); err == nil || !strings.Contains(err.Error(), "gone") || gone.Err() == nil {
		t.Fatalf("a read after a failed make: %v", err)
	}

	l := lineFileOf(t, "a")
	for _, bad := range [][]byte{[]byte("b"), []byte(""), []byte("b\nc\n")} {
		l2 := lineFileOf(t, "a")
		if err := l2.Append(bad); err == nil {
			t.Fatalf("line %q accepted", bad)
		}
		if err := l2.Append([]byte("ok\n")); err == nil {
			t.Fatal("an append after a refused line accepted")
		}
	}
	capped := NewLineFile("test spill", t.TempDir(), "lines-*.txt", 16, 8)
	defer capped.Close()
	if err := capped.Append([]byte(strings.Repeat("y", 20) + "\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := scanAll(capped); err == nil || !strings.Contains(err.Error(), "too long") {
		t.Fatalf("a line past the cap: %v", err)
	}
	refusal := io.ErrShortWrite
	if err := l.Fail(refusal); err != refusal || l.Append([]byte("b\n")) != refusal || l.Err() != refusal {
		t.Fatalf("a caller's refusal does not stick: %v", l.Err())
	}
	if _, err := scanAll(l); err != refusal {
		t.Fatalf("a read after a refusal: %v", err)
	}
}

// FuzzLineFile: any lines appended (no newline inside) read back as
// themselves, in order, numbered from 1.
func FuzzLineFile(f *testing.F) {
	f.Add([]byte("a\nb\n\nc"))
	f.Add([]byte(""))
	f.Add(bytes.Repeat([]byte("z"), 300))
	f.Fuzz(func(t *testing.T, content []byte) {
		lines := bytes.Split(content, []byte("\n"))
		l := NewLineFile("fuzz spill", t.TempDir(), "lines-*.txt", 16, 1<<10)
		defer l.Close()
		for _, s := range lines {
			if err := l.Append(append(append([]byte{}, s...), '\n')); err != nil {
				t.Fatal(err)
			}
		}
		got, err := scanAll(l)
		if len(content) > 1<<10 && err != nil {
			return // a line may pass the cap
		}
		if err != nil || len(got) != len(lines) {
			t.Fatalf("%d lines read back (%v), %d written", len(got), err, len(lines))
		}
		for i := range got {
			if got[i] != string(lines[i]) {
				t.Fatalf("line %d read back as %q, written %q", i+1, got[i], lines[i])
			}
		}
	})
}
