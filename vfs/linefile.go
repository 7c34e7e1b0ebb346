package vfs

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// LineFile is a scratch file (Scratch: unlinked as soon as it is made) of
// lines appended in order and read back in order: where a process keeps
// records out of memory until it reads them again. It counts the lines it
// wrote, and a read that finds another count (the file cut short or added
// to behind the writer's back) is an error, so a reader never takes part
// of what was written for the whole. The first failure sticks: every
// later call returns it. What each line holds is its user's.
//
// Invariant: once made and while err is nil, the file holds exactly lines
// lines (those still in w's buffer included), each ending in '\n'.
type LineFile struct {
	// what names the file's records in every error ("history spill").
	what       string
	dir        string
	pattern    string
	bufBytes   int
	lineLenMax int
	f          File
	w          *bufio.Writer
	lines      int
	err        error
}

// NewLineFile is a LineFile made (on its first Append) by Scratch(dir,
// pattern), writing through a bufBytes buffer and reading back lines of
// at most lineLenMax bytes; what names its records in errors.
func NewLineFile(what, dir, pattern string, bufBytes, lineLenMax int) *LineFile {
	if bufBytes <= 0 || lineLenMax <= 0 {
		panic(fmt.Sprintf("vfs: line file %q with a %d-byte buffer and %d-byte lines", what, bufBytes, lineLenMax))
	}
	return &LineFile{what: what, dir: dir, pattern: pattern, bufBytes: bufBytes, lineLenMax: lineLenMax}
}

// Append writes line, which ends in '\n' and holds no other, making the
// file first.
func (l *LineFile) Append(line []byte) error {
	if l.err != nil {
		return l.err
	}
	if n := len(line); n == 0 || bytes.IndexByte(line, '\n') != n-1 {
		return l.Fail(fmt.Errorf("%s: line %d refused: it must end in its only newline", l.what, l.lines+1))
	}
	if l.f == nil {
		f, err := Scratch(l.dir, l.pattern)
		if err != nil {
			return l.Fail(fmt.Errorf("%s: %w", l.what, err))
		}
		l.f, l.w = f, bufio.NewWriterSize(f, l.bufBytes)
	}
	if _, err := l.w.Write(line); err != nil {
		return l.Fail(fmt.Errorf("%s: write %s: %w", l.what, l.f.Name(), err))
	}
	l.lines++
	return nil
}

// Fail makes err the file's lasting error (the first one stays) and
// returns the lasting error: a writer that refuses a record of its own
// stops the file as a failed write does.
func (l *LineFile) Fail(err error) error {
	if l.err == nil {
		l.err = err
	}
	return l.err
}

// Err is the file's lasting error, nil while it holds what was written.
func (l *LineFile) Err() error { return l.err }

// Lines is how many lines were appended.
func (l *LineFile) Lines() int { return l.lines }

// Made reports whether the file exists (a line was appended).
func (l *LineFile) Made() bool { return l.f != nil }

// Scan calls each with every line in order (n counts from 1; the line
// without its newline, valid only during the call), then checks that the
// file held as many lines as were appended, the last one whole. An error
// of each, a line past the count, a file ending inside a line, a read
// that fails or a count short is returned, naming the file and the line;
// a file never made holds no line, and one closed after lines were
// written is an error.
func (l *LineFile) Scan(each func(n int, line []byte) error) error {
	if l.f == nil {
		if l.err == nil && l.lines > 0 {
			return fmt.Errorf("%s: read after the file was closed (%d lines written)", l.what, l.lines)
		}
		return l.err
	}
	if err := l.Flush(); err != nil {
		return err
	}
	size, err := l.f.Size()
	if err != nil {
		return fmt.Errorf("%s: %s: %w", l.what, l.f.Name(), err)
	}
	if size > 0 { // every line ends in a newline: a file that does not was cut inside its last
		last := make([]byte, 1)
		if _, err := l.f.ReadAt(last, size-1); err != nil {
			return fmt.Errorf("%s: read %s: %w", l.what, l.f.Name(), err)
		}
		if last[0] != '\n' {
			return fmt.Errorf("%s: %s ends inside a line: cut short", l.what, l.f.Name())
		}
	}
	sc := bufio.NewScanner(io.NewSectionReader(l.f, 0, size))
	sc.Buffer(make([]byte, 0, min(64<<10, l.lineLenMax)), l.lineLenMax)
	sc.Split(splitNewlines)
	n := 0
	for sc.Scan() {
		n++
		if n > l.lines {
			return fmt.Errorf("%s: %s line %d: past the %d lines written", l.what, l.f.Name(), n, l.lines)
		}
		if err := each(n, sc.Bytes()); err != nil {
			return fmt.Errorf("%s: %s line %d: %w", l.what, l.f.Name(), n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: read %s: %w", l.what, l.f.Name(), err)
	}
	if n != l.lines {
		return fmt.Errorf("%s: %s holds %d lines, %d were written", l.what, l.f.Name(), n, l.lines)
	}
	return nil
}

// splitNewlines is bufio.ScanLines without its dropping of a '\r'
// before the newline: a line reads back byte for byte as appended.
func splitNewlines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// File is the open file, nil before the first Append: for a test that
// breaks it behind the writer's back (after Flush).
func (l *LineFile) File() File { return l.f }

// Flush writes what the buffer holds to the file.
func (l *LineFile) Flush() error {
	if l.err != nil || l.w == nil {
		return l.err
	}
	if err := l.w.Flush(); err != nil {
		return l.Fail(fmt.Errorf("%s: write %s: %w", l.what, l.f.Name(), err))
	}
	return nil
}

// Close releases the file; it may be called again.
func (l *LineFile) Close() error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f, l.w = nil, nil
	return err
}
